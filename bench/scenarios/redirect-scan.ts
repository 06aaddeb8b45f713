import type { ScenarioResult } from "../lib/result.ts"
import { load, loadNote, problems, round, settings } from "../lib/load.ts"
import { BROWSER_UA, engineStatus, linkTableSize, Scope, settledStatus, startLinkTable, tableSlug, visit, warm } from "../lib/processes.ts"

export const description =
  "Slug scans: random slugs that do not exist on a 600,000-link table; rate vs cached hits on the same engine, share answered without a DB query"

const HIT_LINKS = 100
/** Table slugs have 7 characters; random 8-character slugs never name a link. */
const SCAN_SLUG_LENGTH = 8

export default async function run(): Promise<ScenarioResult> {
  const { durationSec, connections } = settings()
  const links = linkTableSize()
  const scope = new Scope()
  try {
    const table = await startLinkTable(scope, links)
    const { engine, host } = table
    const headers = { "user-agent": BROWSER_UA, "cf-ipcountry": "US" }
    const hitPaths = Array.from({ length: HIT_LINKS }, (_, i) => `/${tableSlug(i * Math.floor(links / HIT_LINKS))}`)

    await warm(engine.baseUrl, host, hitPaths)
    const hit = await load({ url: engine.baseUrl, host, paths: hitPaths, connections, durationSec, headers })

    const sample = await visit(engine.baseUrl, host, "/zZ9scan0", { headers })
    if (sample.status !== 404) throw new Error(`an unknown slug answered ${sample.status}, expected 404`)
    const before = await engineStatus(engine.baseUrl)
    const scan = await load({ url: engine.baseUrl, host, randomSlug: { length: SCAN_SLUG_LENGTH }, connections, durationSec, headers })
    const after = await settledStatus(engine.baseUrl)
    const queries = after.queries - before.queries
    const withoutQuery = Math.max(0, 1 - queries / scan.requests)
    const rateRatio = scan.requestsPerSec / hit.requestsPerSec

    return {
      figures: {
        "requests/s": round(scan.requestsPerSec),
        "p50 ms": round(scan.latencyP50Ms, 3),
        "p99 ms": round(scan.latencyP99Ms, 3),
        requests: scan.requests,
        "4xx/5xx responses (404 expected)": scan.non2xx3xx,
        "DB queries": queries,
        ...(after.filtered !== undefined && before.filtered !== undefined ? { "answered by the slug filter": after.filtered - before.filtered } : {}),
        "answered without a DB query": round(withoutQuery, 4),
        "cached entries after": after.cache.links
      },
      baseline: {
        "requests/s": round(hit.requestsPerSec),
        "p50 ms": round(hit.latencyP50Ms, 3),
        "p99 ms": round(hit.latencyP99Ms, 3),
        requests: hit.requests
      },
      ratios: {
        "scan rate vs cached-hit rate (same engine)": round(rateRatio, 3),
        "answered without a DB query": round(withoutQuery, 4)
      },
      goals: [
        { goal: "scan rate >= 0.50 x hit rate", value: round(rateRatio, 3), met: rateRatio >= 0.5 },
        { goal: ">= 99% of scan requests without a DB query", value: round(withoutQuery, 4), met: withoutQuery >= 0.99 }
      ],
      notes: [
        loadNote(connections, durationSec),
        `setup: ${links.toLocaleString("en-US")} links on PostgreSQL (inserted in ${table.insertMs} ms), ricochet control alone + one ricochet engine (RICOCHET_CACHE_TTL_SECONDS=86400)`,
        `scan phase: each request a fresh random ${SCAN_SLUG_LENGTH}-character [A-Za-z0-9] slug (the table's are 7 characters, so none exists); expected answer 404`,
        `baseline: the same engine just before, rotating over ${HIT_LINKS} cached links (the redirect-hit load shape)`,
        `"answered without a DB query" = 1 - (engine cache queries during the scan / scan requests); queries include up to ${connections} requests in flight when the load tool stopped`,
        ...problems("hit phase", hit),
        ...(scan.errors > 0 ? [`scan phase: ${scan.errors} connection errors/timeouts`] : []),
        ...(scan.non2xx3xx < scan.requests * 0.99 ? [`scan phase: only ${scan.non2xx3xx} of ${scan.requests} answers were 4xx/5xx`] : [])
      ]
    }
  } finally {
    await scope.close()
  }
}
