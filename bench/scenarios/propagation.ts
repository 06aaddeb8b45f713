import { performance } from "node:perf_hooks"
import type { ScenarioResult } from "../lib/result.ts"
import { round } from "../lib/load.ts"
import {
  apiClient,
  createBenchDatabase,
  eventually,
  FIRST_HOST,
  firstKey,
  removeDir,
  Scope,
  sleep,
  startControl,
  startEngineProcess,
  startNats,
  tempDir,
  visit
} from "../lib/processes.ts"

export const description =
  "Change propagation: control + two engines on PostgreSQL and NATS; 100 PATCHes of a link's url, time from the API's 200 until both engines serve it"

const PATCHES = Number(process.env.BENCH_PATCHES ?? 100)
const TIMEOUT_MS = 5_000

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]

const stats = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? NaN }
}

/** Polls one engine every ~1 ms until it redirects to `location`; ms since `since`. */
const until = async (engineUrl: string, slug: string, location: string, since: number): Promise<number> => {
  for (;;) {
    const answer = await visit(engineUrl, FIRST_HOST, `/${slug}`)
    const now = performance.now()
    if (answer.location === location) return now - since
    if (now - since > TIMEOUT_MS) throw new Error(`${engineUrl} still served ${answer.status} ${answer.location} after ${TIMEOUT_MS} ms (waiting for ${location})`)
    await sleep(1)
  }
}

export default async function run(): Promise<ScenarioResult> {
  const scope = new Scope()
  try {
    const db = await createBenchDatabase(scope)
    const nats = await startNats()
    scope.defer("stop nats", () => nats.stop())
    const dir = await tempDir("ricochet-bench-prop-")
    scope.defer("remove data dir", () => removeDir(dir))
    const env = { DATABASE_URL: db.url, NATS_URL: nats.url, RICOCHET_DATA_DIR: dir, RICOCHET_CACHE_TTL_SECONDS: "3600", RICOCHET_LINK_SCHEME: "http" }
    const control = await startControl(env, true)
    scope.defer("stop control", () => control.stop())
    const engines = await Promise.all([startEngineProcess(env), startEngineProcess(env)])
    for (const [i, engine] of engines.entries()) scope.defer(`stop engine ${i + 1}`, () => engine.stop())
    const api = apiClient(control.baseUrl, firstKey(control))

    const slug = "prop"
    const created = await api.post("/v1/links", { url: "https://example.com/propagation/0", slug })
    if (created.status !== 201) throw new Error(`creating the link: HTTP ${created.status} ${JSON.stringify(created.body)}`)
    // Both engines must have the link cached, so that only the bus can bring them the change.
    for (const engine of engines) {
      await eventually(async () => (await visit(engine.baseUrl, FIRST_HOST, `/${slug}`)).location === "https://example.com/propagation/0", 10_000, 20)
    }

    const patchMs: Array<number> = []
    const propagationMs: Array<number> = []
    const perEngineMs: Array<Array<number>> = engines.map(() => [])
    for (let i = 1; i <= PATCHES; i++) {
      const url = `https://example.com/propagation/${i}`
      const sent = performance.now()
      const res = await api.patch(`/v1/links/${created.body.id}`, { url })
      const answered = performance.now()
      if (res.status !== 200) throw new Error(`PATCH ${i}: HTTP ${res.status} ${JSON.stringify(res.body)}`)
      patchMs.push(answered - sent)
      const each = await Promise.all(engines.map((engine) => until(engine.baseUrl, slug, url, answered)))
      each.forEach((ms, e) => perEngineMs[e].push(ms))
      propagationMs.push(Math.max(...each))
      await sleep(10)
    }

    const prop = stats(propagationMs)
    const patch = stats(patchMs)
    return {
      figures: {
        "propagation p50 ms": round(prop.p50, 2),
        "propagation p99 ms": round(prop.p99, 2),
        "propagation max ms": round(prop.max, 2),
        ...Object.fromEntries(perEngineMs.map((values, e) => [`engine ${e + 1} p99 ms`, round(stats(values).p99, 2)])),
        patches: PATCHES
      },
      baseline: {
        "PATCH round trip p50 ms": round(patch.p50, 2),
        "PATCH round trip p99 ms": round(patch.p99, 2),
        "PATCH round trip max ms": round(patch.max, 2)
      },
      ratios: {
        "propagation p99 / PATCH round trip p99": round(prop.p99 / patch.p99, 3),
        "propagation p50 / PATCH round trip p50": round(prop.p50 / patch.p50, 3)
      },
      goals: [{ goal: "propagation p99 <= 100 ms", value: round(prop.p99, 2), met: prop.p99 <= 100 }],
      notes: [
        "ricochet control alone + two ricochet engines, PostgreSQL on loopback, a private nats-server; the link is cached on both engines first",
        "propagation: from the PATCH's 200 (as the client received it) until both engines redirect to the new url; each engine polled with a fresh connection about every 1 ms",
        "baseline: the PATCH round trip itself (request sent to response received), measured on the same requests",
        "a change already visible when the 200 arrives counts as the time of the first poll (under 1 ms)"
      ]
    }
  } finally {
    await scope.close()
  }
}
