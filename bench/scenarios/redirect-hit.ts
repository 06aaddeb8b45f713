import { cpus, loadavg } from "node:os"
import { cpuPerRequest, cpuTime } from "../lib/cpu.ts"
import type { ScenarioResult } from "../lib/result.ts"
import { load, type LoadResult, loadNote, problems, round, settings } from "../lib/load.ts"
import {
  apiClient,
  BROWSER_UA,
  createRuleLinks,
  embeddedRedirectEnv,
  engineStatus,
  type EngineStatus,
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
  "Cached redirects: embedded npm start, 100 links with geo/device rules and utm, browser UA + cf-ipcountry (clicks captured), vs bare uWS.js 302, in alternating rounds"

const LINKS = 100
/** Rounds of (baseline, ricochet): this machine's speed drifts, so both are measured in turn and the medians compared. */
const ROUNDS = Math.max(1, Math.floor(Number(process.env.BENCH_ROUNDS ?? 3)))
/**
 * Behind a trusted reverse proxy (RICOCHET_TRUST_PROXY, X-Forwarded-For on every request) the
 * engine takes the visitor's address from the header instead of asking uWS.js for the socket's,
 * which costs an ArrayBuffer a request: both are measured (BENCH_TRUST_PROXY=1 for this one).
 */
const TRUST_PROXY = process.env.BENCH_TRUST_PROXY === "1"

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

interface Phase {
  readonly load: LoadResult
  readonly cpu: ReturnType<typeof cpuPerRequest>
}

/** Waits until every click acknowledged so far is in Parquet, so a roll does not run into the next phase. */
const rolledStatus = async (engineUrl: string): Promise<EngineStatus> => {
  const deadline = Date.now() + 20_000
  let status = await settledStatus(engineUrl)
  while (Date.now() < deadline && (status.sink?.rolled ?? 0) < (status.sink?.acknowledged ?? 0)) {
    await new Promise((r) => setTimeout(r, 200))
    status = await engineStatus(engineUrl)
  }
  return status
}

export default async function run(): Promise<ScenarioResult> {
  const { durationSec, connections } = settings()
  const scope = new Scope()
  try {
    const paths = Array.from({ length: LINKS }, (_, i) => `/h${i.toString(36).padStart(6, "0")}`)
    const headers: Record<string, string> = { "user-agent": BROWSER_UA, "cf-ipcountry": "DE", ...(TRUST_PROXY ? { "x-forwarded-for": "203.0.113.7" } : {}) }

    const bare = await startBareUws(scope)
    const dir = await tempDir("ricochet-bench-hit-")
    scope.defer("remove data dir", () => removeDir(dir))
    // The hot path on the main thread (RICOCHET_ENGINE_WORKERS=0), so the server thread's CPU per
    // request compares with bare uWS.js's; what worker threads do is the engine-workers scenario.
    const control = await startControl({ ...embeddedRedirectEnv(dir, 0), ...(TRUST_PROXY ? { RICOCHET_TRUST_PROXY: "true" } : {}) })
    scope.defer("stop npm start", () => control.stop())
    const engineUrl = `http://127.0.0.1:${control.env.RICOCHET_ENGINE_PORT}`
    await eventually(async () => (await fetch(`${engineUrl}/.well-known/ricochet/status`)).ok, 30_000, 100)

    const api = apiClient(control.baseUrl, firstKey(control))
    const slugs = await createRuleLinks(api, LINKS, "h")
    if (slugs.some((slug, i) => `/${slug}` !== paths[i])) throw new Error("slugs and load paths differ")
    await warm(engineUrl, FIRST_HOST, paths)
    const sample = await visit(engineUrl, FIRST_HOST, paths[0], { headers })

    const phase = async (url: string, pid: number | undefined): Promise<Phase> => {
      const before = await cpuTime(pid)
      const result = await load({ url, host: FIRST_HOST, paths, connections, durationSec, headers })
      return { load: result, cpu: cpuPerRequest(before, await cpuTime(pid), result.requests) }
    }
    const baselines: Array<Phase> = []
    const ricochets: Array<Phase> = []
    const first = await rolledStatus(engineUrl)
    // Other work on the machine moves every figure here: the notes say how busy it was.
    const loadBefore = loadavg()[0]
    for (let round = 0; round < ROUNDS; round++) {
      baselines.push(await phase(bare.baseUrl, bare.pid))
      ricochets.push(await phase(engineUrl, control.child.pid))
      // The clicks of this phase reach Parquet before the next baseline phase starts.
      await rolledStatus(engineUrl)
    }
    const loadAfter = loadavg()[0]
    const last = await rolledStatus(engineUrl)
    const people = last.clicks.people - first.clicks.people
    const requests = ricochets.reduce((n, p) => n + p.load.requests, 0)
    const status = await engineStatus(engineUrl)

    const summary = (phases: ReadonlyArray<Phase>) => ({
      rate: median(phases.map((p) => p.load.requestsPerSec)),
      p50: median(phases.map((p) => p.load.latencyP50Ms)),
      p99: median(phases.map((p) => p.load.latencyP99Ms)),
      thread: phases.every((p) => p.cpu !== null) ? median(phases.map((p) => p.cpu!.mainThread)) : null,
      process: phases.every((p) => p.cpu !== null) ? median(phases.map((p) => p.cpu!.process)) : null,
      rounds: phases.map((p) => round(p.load.requestsPerSec)).join(" / ")
    })
    const ours = summary(ricochets)
    const theirs = summary(baselines)
    const cpuFigures = (s: typeof ours): Record<string, number> =>
      s.thread === null || s.process === null ? {} : { "server thread CPU µs/request": round(s.thread, 2), "process CPU µs/request (all threads)": round(s.process, 2) }

    const rateRatio = ours.rate / theirs.rate
    const p99Ratio = ours.p99 / theirs.p99
    // CPU per request holds on any machine, whatever share of the cores the load generator takes.
    const threadRatio = ours.thread === null || theirs.thread === null ? null : ours.thread / theirs.thread
    const processRatio = ours.process === null || theirs.process === null ? null : ours.process / theirs.process
    return {
      figures: {
        "requests/s": round(ours.rate),
        "p50 ms": round(ours.p50, 3),
        "p99 ms": round(ours.p99, 3),
        "requests/s per round": ours.rounds,
        "rate vs bare uWS per round": ricochets.map((p, i) => round(p.load.requestsPerSec / baselines[i].load.requestsPerSec, 3)).join(" / "),
        requests,
        "clicks recorded (people)": people,
        "DB queries during load": last.queries - first.queries,
        "cached links": status.cache.links,
        ...cpuFigures(ours)
      },
      baseline: {
        "requests/s": round(theirs.rate),
        "p50 ms": round(theirs.p50, 3),
        "p99 ms": round(theirs.p99, 3),
        "requests/s per round": theirs.rounds,
        requests: baselines.reduce((n, p) => n + p.load.requests, 0),
        ...cpuFigures(theirs)
      },
      ratios: {
        "rate vs bare uWS": round(rateRatio, 3),
        "p99 vs bare uWS": round(p99Ratio, 3),
        "clicks recorded / requests": round(people / requests, 4),
        ...(threadRatio === null ? {} : { "server thread CPU per request vs bare uWS": round(threadRatio, 2) }),
        ...(processRatio === null ? {} : { "process CPU per request vs bare uWS": round(processRatio, 2) })
      },
      goals: [
        ...(processRatio === null ? [] : [{ goal: "process CPU per request <= 2.0 x bare uWS.js", value: round(processRatio, 2), met: processRatio <= 2 }]),
        ...(threadRatio === null ? [] : [{ goal: "server thread CPU per request <= 1.4 x bare uWS.js", value: round(threadRatio, 2), met: threadRatio <= 1.4 }]),
        { goal: "requests/s >= 0.70 x bare uWS.js", value: round(rateRatio, 3), met: rateRatio >= 0.7 },
        { goal: "p99 <= 2 x bare uWS.js p99", value: round(p99Ratio, 3), met: p99Ratio <= 2 }
      ],
      notes: [
        loadNote(connections, durationSec),
        `machine load (1-minute average, this benchmark included): ${loadBefore.toFixed(2)} before the first phase, ${loadAfter.toFixed(2)} after the last, on ${cpus().length} cores`,
        `${ROUNDS} rounds (BENCH_ROUNDS), each a baseline phase then a ricochet phase; figures are the medians over the rounds and the ratios divide the medians`,
        TRUST_PROXY
          ? "behind a trusted proxy (BENCH_TRUST_PROXY=1): RICOCHET_TRUST_PROXY=true and X-Forwarded-For: 203.0.113.7 on every request (baseline too), so the visitor's address comes from the header, not the socket"
          : "the visitor's address from the socket (no trusted proxy; BENCH_TRUST_PROXY=1 measures the header path)",
        `baseline: bare uWebSockets.js answering a fixed 302 + Location (bench/lib/bareUws.ts, child process), same paths, headers, connections and duration`,
        `ricochet: embedded npm start (control + engine + PGlite in one process), ${LINKS} links with 3 geo rules, 2 device rules and a utm set, warmed; ` +
          `paths rotate over them; desktop Chrome UA, cf-ipcountry: DE (geo rule + utm applied: ${sample.status} ${sample.location})`,
        `clicks go to the engine's spool and Parquet (sink acknowledged ${last.sink?.acknowledged ?? "?"}, rolled ${last.sink?.rolled ?? "?"}); each round waits until they are all in Parquet`,
        "CPU µs/request: utime + stime from /proc over a phase divided by the requests served; the server thread is the one uWS.js and all request handling run on, the process adds the click writer thread (classification, spool, fsync, roll to Parquet), DuckDB, GC helpers and PGlite",
        ...baselines.flatMap((p, i) => problems(`baseline round ${i + 1}`, p.load)),
        ...ricochets.flatMap((p, i) => problems(`ricochet round ${i + 1}`, p.load))
      ]
    }
  } finally {
    await scope.close()
  }
}
