import type { ScenarioResult } from "../lib/result.ts"
import { load, loadNote, problems, round, settings } from "../lib/load.ts"
import { BROWSER_UA, engineStatus, linkTableSize, Scope, settledStatus, startLinkTable, tableSlug, visit, warm } from "../lib/processes.ts"

export const description =
  "Cache misses: 600,000 links on PostgreSQL, control alone + one engine, every request a slug not yet cached; DB queries vs requests (coalescing)"

const HIT_LINKS = 100
/** Slugs at the end of the table kept for the burst phase (each requested by every connection at once). */
const BURST_LINKS = 4_000

export default async function run(): Promise<ScenarioResult> {
  const { durationSec, connections } = settings()
  const links = linkTableSize()
  const scope = new Scope()
  try {
    const table = await startLinkTable(scope, links)
    const { engine, host } = table
    const headers = { "user-agent": BROWSER_UA, "cf-ipcountry": "US" }
    if (links < HIT_LINKS + BURST_LINKS + 10_000) throw new Error(`BENCH_MISS_LINKS must be at least ${HIT_LINKS + BURST_LINKS + 10_000}`)
    // The last HIT_LINKS slugs are kept for the cached phase, the BURST_LINKS before them for the
    // burst phase; the miss phase rotates over the rest.
    const missPaths = Array.from({ length: links - HIT_LINKS - BURST_LINKS }, (_, i) => `/${tableSlug(i)}`)
    const burstSlugs = Array.from({ length: BURST_LINKS }, (_, i) => `/${tableSlug(links - HIT_LINKS - BURST_LINKS + i)}`)
    const hitPaths = Array.from({ length: HIT_LINKS }, (_, i) => `/${tableSlug(links - HIT_LINKS + i)}`)

    // Caches the domain (and the hit links), so the miss phase measures link misses only.
    await warm(engine.baseUrl, host, hitPaths)
    const sample = await visit(engine.baseUrl, host, missPaths[0], { headers })
    if (sample.status !== 302) throw new Error(`${missPaths[0]}: expected 302, got ${sample.status}`)
    const missLoad = missPaths.slice(1)

    const before = await engineStatus(engine.baseUrl)
    const miss = await load({ url: engine.baseUrl, host, paths: missLoad, connections, durationSec, headers })
    const after = await settledStatus(engine.baseUrl)
    const queries = after.queries - before.queries
    // wrk and autocannon count the responses received in the window; the engine also saw the
    // requests still in flight at the end (at most one per connection).
    const seen = miss.requests + connections
    const repeats = Math.max(0, seen - missLoad.length)

    // Burst phase: each uncached slug `connections` times in a row, so that every connection asks
    // for it at about the same time; coalescing makes that one query.
    const burstPaths = burstSlugs.flatMap((p) => Array.from({ length: connections }, () => p))
    const beforeBurst = await engineStatus(engine.baseUrl)
    const burst = await load({ url: engine.baseUrl, host, paths: burstPaths, connections, durationSec: Math.max(1, Math.round(durationSec / 2)), headers })
    const afterBurst = await settledStatus(engine.baseUrl)
    const burstQueries = afterBurst.queries - beforeBurst.queries
    const burstSlugsAsked = Math.min(BURST_LINKS, Math.ceil((burst.requests + connections) / connections))

    const hit = await load({ url: engine.baseUrl, host, paths: hitPaths, connections, durationSec, headers })

    return {
      figures: {
        "requests/s": round(miss.requestsPerSec),
        "p50 ms": round(miss.latencyP50Ms, 3),
        "p99 ms": round(miss.latencyP99Ms, 3),
        requests: miss.requests,
        "DB queries": queries,
        "DB queries per request": round(queries / miss.requests, 4),
        "slugs in the table": links,
        "requests that repeated a slug": repeats,
        "cached links after": after.cache.links,
        "burst: requests/s": round(burst.requestsPerSec),
        "burst: requests": burst.requests,
        "burst: DB queries": burstQueries,
        "burst: distinct slugs asked": burstSlugsAsked
      },
      baseline: {
        "requests/s": round(hit.requestsPerSec),
        "p50 ms": round(hit.latencyP50Ms, 3),
        "p99 ms": round(hit.latencyP99Ms, 3),
        requests: hit.requests
      },
      ratios: {
        "miss rate vs cached-hit rate (same engine)": round(miss.requestsPerSec / hit.requestsPerSec, 3),
        "DB queries / requests": round(queries / miss.requests, 4),
        "burst: DB queries / requests": round(burstQueries / burst.requests, 4)
      },
      goals: [
        // A rotation that wrapped served cached repeats: then the rate is not a miss rate.
        { goal: "misses >= 10,000 requests/s, every request a miss", value: `${round(miss.requestsPerSec)}${repeats > 0 ? ` (${repeats} repeats)` : ""}`, met: miss.requestsPerSec >= 10_000 && repeats === 0 },
        { goal: "DB queries <= requests (coalescing)", value: `${queries} <= ${seen}`, met: queries <= seen },
        {
          goal: "burst: DB queries < requests (concurrent misses share a query)",
          value: `${burstQueries} < ${burst.requests}`,
          met: burstQueries < burst.requests
        }
      ],
      notes: [
        loadNote(connections, durationSec),
        `setup: ${links.toLocaleString("en-US")} links inserted with INSERT ... SELECT generate_series in ${table.insertMs} ms ` +
          `(a third with a utm set, a tenth with a geo rule); ricochet control alone + one ricochet engine (RICOCHET_CACHE_TTL_SECONDS=86400), PostgreSQL on loopback`,
        `miss phase: paths rotate over ${missLoad.length.toLocaleString("en-US")} slugs never requested before, so each request is a cache miss ` +
          `until the rotation wraps${repeats > 0 ? ` (it wrapped: ${repeats} requests were cached repeats; raise BENCH_MISS_LINKS)` : ""}`,
        `burst phase (${Math.max(1, Math.round(durationSec / 2))} s): each of up to ${BURST_LINKS.toLocaleString("en-US")} further uncached slugs ${connections} times in a row, ` +
          `so the connections ask for it together; coalescing shows as DB queries well below requests (about one per slug)`,
        `baseline: the same engine afterwards, rotating over ${HIT_LINKS} cached links`,
        `DB queries counted by the engine's cache (status endpoint); the count includes up to ${connections} requests still in flight when the load tool stopped`,
        ...problems("miss phase", miss),
        ...problems("burst phase", burst),
        ...problems("hit phase", hit)
      ]
    }
  } finally {
    await scope.close()
  }
}
