import { cpuPerRequest, cpuTime } from "../lib/cpu.ts"
import type { ScenarioResult } from "../lib/result.ts"
import { load, loadNote, problems, round, settings } from "../lib/load.ts"
import {
  apiClient,
  BROWSER_UA,
  createRuleLinks,
  engineStatus,
  eventually,
  FIRST_HOST,
  firstKey,
  removeDir,
  Scope,
  settledStatus,
  startBareUws,
  startControl,
  tempDir,
  visit,
  warm
} from "../lib/processes.ts"

export const description =
  "Cached redirects: embedded npm start, 100 links with geo/device rules and utm, browser UA + cf-ipcountry (clicks captured), vs bare uWS.js 302"

const LINKS = 100

export default async function run(): Promise<ScenarioResult> {
  const { durationSec, connections } = settings()
  const scope = new Scope()
  try {
    const paths = Array.from({ length: LINKS }, (_, i) => `/h${i.toString(36).padStart(6, "0")}`)
    const headers = { "user-agent": BROWSER_UA, "cf-ipcountry": "DE" }

    // Baseline first, while nothing else runs.
    const bare = await startBareUws(scope)
    const bareCpuBefore = await cpuTime(bare.pid)
    const baseline = await load({ url: bare.baseUrl, host: FIRST_HOST, paths, connections, durationSec, headers })
    const bareCpu = cpuPerRequest(bareCpuBefore, await cpuTime(bare.pid), baseline.requests)
    await scope.close()

    const scope2 = new Scope()
    try {
      const dir = await tempDir("ricochet-bench-hit-")
      scope2.defer("remove data dir", () => removeDir(dir))
      const control = await startControl({
        RICOCHET_DATA_DIR: dir,
        DATABASE_URL: undefined,
        NATS_URL: undefined,
        RICOCHET_GEO_HEADER: "cf-ipcountry",
        RICOCHET_LINK_SCHEME: "http"
      })
      scope2.defer("stop npm start", () => control.stop())
      const engineUrl = `http://127.0.0.1:${control.env.RICOCHET_ENGINE_PORT}`
      await eventually(async () => (await fetch(`${engineUrl}/.well-known/ricochet/status`)).ok, 30_000, 100)

      const api = apiClient(control.baseUrl, firstKey(control))
      const slugs = await createRuleLinks(api, LINKS, "h")
      if (slugs.some((slug, i) => `/${slug}` !== paths[i])) throw new Error("slugs and load paths differ")
      await warm(engineUrl, FIRST_HOST, paths)
      const sample = await visit(engineUrl, FIRST_HOST, paths[0], { headers })
      const before = await settledStatus(engineUrl)
      const cpuBefore = await cpuTime(control.child.pid)

      const ricochet = await load({ url: engineUrl, host: FIRST_HOST, paths, connections, durationSec, headers })
      const cpu = cpuPerRequest(cpuBefore, await cpuTime(control.child.pid), ricochet.requests)

      const after = await settledStatus(engineUrl)
      const people = after.clicks.people - before.clicks.people
      const queries = after.queries - before.queries
      const status = await engineStatus(engineUrl)

      const rateRatio = ricochet.requestsPerSec / baseline.requestsPerSec
      const p99Ratio = ricochet.latencyP99Ms / baseline.latencyP99Ms
      return {
        figures: {
          "requests/s": round(ricochet.requestsPerSec),
          "p50 ms": round(ricochet.latencyP50Ms, 3),
          "p99 ms": round(ricochet.latencyP99Ms, 3),
          requests: ricochet.requests,
          "clicks recorded (people)": people,
          "DB queries during load": queries,
          "cached links": status.cache.links,
          ...(cpu === null ? {} : { "server thread CPU µs/request": round(cpu.mainThread, 2), "process CPU µs/request (all threads)": round(cpu.process, 2) })
        },
        baseline: {
          "requests/s": round(baseline.requestsPerSec),
          "p50 ms": round(baseline.latencyP50Ms, 3),
          "p99 ms": round(baseline.latencyP99Ms, 3),
          requests: baseline.requests,
          ...(bareCpu === null ? {} : { "server thread CPU µs/request": round(bareCpu.mainThread, 2), "process CPU µs/request (all threads)": round(bareCpu.process, 2) })
        },
        ratios: {
          "rate vs bare uWS": round(rateRatio, 3),
          "p99 vs bare uWS": round(p99Ratio, 3),
          "clicks recorded / requests": round(people / ricochet.requests, 4),
          ...(cpu === null || bareCpu === null ? {} : { "server thread CPU per request vs bare uWS": round(cpu.mainThread / bareCpu.mainThread, 2) })
        },
        goals: [
          { goal: "requests/s >= 0.70 x bare uWS.js", value: round(rateRatio, 3), met: rateRatio >= 0.7 },
          { goal: "p99 <= 2 x bare uWS.js p99", value: round(p99Ratio, 3), met: p99Ratio <= 2 }
        ],
        notes: [
          loadNote(connections, durationSec),
          `baseline: bare uWebSockets.js answering a fixed 302 + Location (bench/lib/bareUws.ts, child process), same paths, headers, connections and duration`,
          `ricochet: embedded npm start (control + engine + PGlite in one process), ${LINKS} links with 3 geo rules, 2 device rules and a utm set, warmed; ` +
            `paths rotate over them; desktop Chrome UA, cf-ipcountry: DE (geo rule + utm applied: ${sample.status} ${sample.location})`,
          `clicks go to the engine's spool and Parquet (sink acknowledged ${after.sink?.acknowledged ?? "?"}, rolled ${after.sink?.rolled ?? "?"})`,
          "CPU µs/request: utime + stime from /proc over the load phase divided by the requests served; the server thread is the one uWS.js and all request handling run on, the process adds the click writer thread (classification, spool, fsync, roll to Parquet), DuckDB, GC helpers and PGlite",
          ...problems("baseline", baseline),
          ...problems("ricochet", ricochet)
        ]
      }
    } finally {
      await scope2.close()
    }
  } finally {
    await scope.close()
  }
}
