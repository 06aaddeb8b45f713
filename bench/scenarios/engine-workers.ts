import { cpuPerRequest, cpuTime } from "../lib/cpu.ts"
import { load, loadNote, problems, round, settings } from "../lib/load.ts"
import type { ScenarioResult } from "../lib/result.ts"
import {
  apiClient,
  BROWSER_UA,
  createRuleLinks,
  embeddedRedirectEnv,
  FIRST_HOST,
  firstKey,
  removeDir,
  Scope,
  startControl,
  tempDir,
  warm
} from "../lib/processes.ts"

export const description =
  "Cached redirects through 1 and 2 engine HTTP workers (RICOCHET_ENGINE_WORKERS): rate and CPU per request of the whole process, the same links, load and click capture as redirect-hit"

const LINKS = 100
const WORKER_COUNTS = [1, 2] as const

/** One embedded npm start with `workers` HTTP workers: its rate and process CPU per request under the same load. */
const measure = async (workers: number, durationSec: number, connections: number) => {
  const scope = new Scope()
  try {
    const dir = await tempDir(`ricochet-bench-workers-${workers}-`)
    scope.defer("remove data dir", () => removeDir(dir))
    const control = await startControl(embeddedRedirectEnv(dir, workers))
    scope.defer("stop npm start", () => control.stop())
    const engineUrl = `http://127.0.0.1:${control.env.RICOCHET_ENGINE_PORT}`
    const api = apiClient(control.baseUrl, firstKey(control))
    const slugs = await createRuleLinks(api, LINKS, "w")
    const paths = slugs.map((slug) => `/${slug}`)
    // Every worker's cache warms from one worker's misses (the main thread relays what it loads).
    await warm(engineUrl, FIRST_HOST, paths)
    const headers = { "user-agent": BROWSER_UA, "cf-ipcountry": "DE" }
    const before = await cpuTime(control.child.pid)
    const result = await load({ url: engineUrl, host: FIRST_HOST, paths, connections, durationSec, headers })
    const cpu = cpuPerRequest(before, await cpuTime(control.child.pid), result.requests)
    return { result, cpu }
  } finally {
    await scope.close()
  }
}

export default async function run(): Promise<ScenarioResult> {
  const { durationSec, connections } = settings()
  const runs = []
  for (const workers of WORKER_COUNTS) runs.push({ workers, ...(await measure(workers, durationSec, connections)) })
  const [one, two] = runs
  const figures: Record<string, number | string> = {}
  for (const { workers, result, cpu } of runs) {
    figures[`${workers} worker(s): requests/s`] = round(result.requestsPerSec)
    figures[`${workers} worker(s): p99 ms`] = round(result.latencyP99Ms, 3)
    if (cpu !== null) figures[`${workers} worker(s): process CPU µs/request`] = round(cpu.process, 2)
  }
  const rateRatio = two.result.requestsPerSec / one.result.requestsPerSec
  return {
    figures,
    baseline: { "requests/s": round(one.result.requestsPerSec), ...(one.cpu === null ? {} : { "process CPU µs/request": round(one.cpu.process, 2) }) },
    ratios: {
      "2 workers rate vs 1": round(rateRatio, 3),
      ...(one.cpu === null || two.cpu === null ? {} : { "2 workers CPU per request vs 1": round(two.cpu.process / one.cpu.process, 3) })
    },
    goals: [{ goal: "figures of CPU per request and rate for 1 and 2 workers", value: round(rateRatio, 3), met: one.cpu !== null && two.cpu !== null }],
    notes: [
      loadNote(connections, durationSec),
      `embedded npm start (control, engine and PGlite in one process), ${LINKS} links with geo and device rules and utm, desktop Chrome UA, clicks captured; one run per worker count, back to back`,
      "CPU µs/request: utime + stime of the whole process (every thread: HTTP workers, main thread, click writer) over the load phase, divided by the requests served",
      "On a two-core machine the load generator takes a core of its own, so a second HTTP worker mostly competes with it and with the click writer; the rate gain shows on machines with more cores than the load needs",
      ...runs.flatMap(({ workers, result }) => problems(`${workers} worker(s)`, result))
    ]
  }
}
