import { type ChildProcess, spawn } from "node:child_process"
import { cpus, loadavg } from "node:os"
import { performance } from "node:perf_hooks"
import { groupCpuMillis, statMillis } from "../lib/cpu.ts"
import type { ScenarioResult } from "../lib/result.ts"
import { createBenchDatabase, freePort, removeDir, ROOT, Scope, sleep, tempDir } from "../lib/processes.ts"

export const description =
  "Start-up: npm start to its banner (fresh and existing data directory), a CLI command (embedded and PostgreSQL), control and an engine alone ready; the build (dist/) against the sources through tsx"

const ROUNDS = Math.max(1, Math.floor(Number(process.env.BENCH_STARTUP_ROUNDS ?? 3)))
const TIMEOUT_MS = 180_000

/**
 * How each variant is run, as an operator types it: the build (`npm start`, `npm run ricochet --`)
 * and, as the baseline, the sources through tsx (`npm run dev`, `npm run dev:ricochet --`), which
 * is how every process ran before the build.
 */
const VARIANTS = {
  built: { start: ["start"], cli: ["run", "ricochet", "--"] },
  source: { start: ["run", "dev"], cli: ["run", "dev:ricochet", "--"] }
} as const
type Variant = keyof typeof VARIANTS

interface Started {
  readonly child: ChildProcess
  readonly output: () => string
  /** Stops the whole process group (npm, its shell, node) and waits until every one has exited. */
  readonly stop: () => Promise<void>
}

const groupAlive = (pid: number) => {
  try {
    process.kill(-pid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * `npm ARGS` in its own process group, so a stop reaches node behind npm and its shell. With
 * `reportCpu`, through a shell that writes its /proc stat to fd 3 once npm has exited: what npm
 * and everything under it used (the /proc entries of exited processes are gone).
 */
const npm = (scope: Scope, args: ReadonlyArray<string>, env: Record<string, string | undefined>, reportCpu = false): Started & { readonly stat: () => string } => {
  const command: [string, Array<string>] = reportCpu
    ? ["sh", ["-c", 'npm "$@"; code=$?; cat /proc/$$/stat >&3; exit $code', "sh", ...args]]
    : ["npm", [...args]]
  const child = spawn(command[0], command[1], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe", "pipe"], detached: true })
  let output = ""
  let stat = ""
  child.stdout!.on("data", (chunk) => (output += chunk))
  child.stderr!.on("data", (chunk) => (output += chunk))
  ;(child.stdio[3] as NodeJS.ReadableStream).on("data", (chunk) => (stat += chunk))
  let stopping: Promise<void> | undefined
  const stop = () =>
    (stopping ??= (async () => {
      const pid = child.pid!
      if (groupAlive(pid)) process.kill(-pid, "SIGTERM")
      const deadline = Date.now() + 30_000
      while (groupAlive(pid) && Date.now() < deadline) await sleep(50)
      if (groupAlive(pid)) process.kill(-pid, "SIGKILL")
      while (groupAlive(pid)) await sleep(50)
    })())
  scope.defer(`stop npm ${args.join(" ")}`, stop)
  return { child, output: () => output, stop, stat: () => stat }
}

interface Timed {
  readonly ms: number
  /** CPU ms the process group used until then (null without /proc). */
  readonly cpuMs: number | null
}

/** Ms from spawning `npm ARGS` until its output matches `ready`; the process keeps running. */
const timeUntilOutput = async (scope: Scope, args: ReadonlyArray<string>, env: Record<string, string | undefined>, ready: RegExp) => {
  const started = performance.now()
  const proc = npm(scope, args, env)
  for (;;) {
    if (ready.test(proc.output())) {
      const ms = performance.now() - started
      return { ms, cpuMs: await groupCpuMillis(proc.child.pid!), proc }
    }
    if (proc.child.exitCode !== null) throw new Error(`npm ${args.join(" ")} exited ${proc.child.exitCode} before it was ready:\n${proc.output().slice(-3000)}`)
    if (performance.now() - started > TIMEOUT_MS) throw new Error(`npm ${args.join(" ")} not ready after ${TIMEOUT_MS} ms:\n${proc.output().slice(-3000)}`)
    await sleep(10)
  }
}

/** Ms from spawning `npm ARGS` until the engine's /readyz answers 200. */
const timeUntilReady = async (scope: Scope, args: ReadonlyArray<string>, env: Record<string, string | undefined>, readyz: string) => {
  const started = performance.now()
  const proc = npm(scope, args, env)
  for (;;) {
    const ok = await fetch(readyz).then((res) => res.ok, () => false)
    if (ok) {
      const ms = performance.now() - started
      return { ms, cpuMs: await groupCpuMillis(proc.child.pid!), proc }
    }
    if (proc.child.exitCode !== null) throw new Error(`npm ${args.join(" ")} exited ${proc.child.exitCode} before it was ready:\n${proc.output().slice(-3000)}`)
    if (performance.now() - started > TIMEOUT_MS) throw new Error(`npm ${args.join(" ")} not ready after ${TIMEOUT_MS} ms:\n${proc.output().slice(-3000)}`)
    await sleep(20)
  }
}

/** Ms from spawning a CLI command until it has exited 0. */
const timeCommand = async (scope: Scope, args: ReadonlyArray<string>, env: Record<string, string | undefined>): Promise<Timed> => {
  const started = performance.now()
  const proc = npm(scope, args, env, true)
  const code = await new Promise<number | null>((resolve) => (proc.child.exitCode !== null ? resolve(proc.child.exitCode) : proc.child.once("exit", resolve)))
  const ms = performance.now() - started
  if (code !== 0) throw new Error(`npm ${args.join(" ")} exited ${code}:\n${proc.output().slice(-3000)}`)
  await proc.stop()
  const stat = proc.stat()
  return { ms, cpuMs: process.platform === "linux" && stat.includes(")") ? statMillis(stat, true) : null }
}

const MEASURES = [
  "npm start: banner, fresh data dir",
  "npm start: banner, existing data dir",
  "CLI workspace list, embedded, server running",
  "CLI workspace list, embedded, no server",
  "control alone: banner, PostgreSQL",
  "CLI workspace list, PostgreSQL",
  "engine alone: /readyz 200, PostgreSQL"
] as const
type Measure = (typeof MEASURES)[number]

/** One round of every measurement for one variant, each process on its own ports and data. */
const measure = async (variant: Variant): Promise<Record<Measure, Timed>> => {
  const scope = new Scope()
  const { start, cli } = VARIANTS[variant]
  try {
    const ports = async () => ({
      RICOCHET_LISTEN_HOST: "127.0.0.1",
      RICOCHET_API_PORT: String(await freePort()),
      RICOCHET_ENGINE_PORT: String(await freePort()),
      RICOCHET_ENGINE_ADMIN_PORT: String(await freePort())
    })
    const dir = await tempDir("ricochet-bench-startup-")
    scope.defer("remove data dir", () => removeDir(dir))
    const embedded = { ...(await ports()), RICOCHET_DATA_DIR: dir, DATABASE_URL: undefined, NATS_URL: undefined }
    const banner = /Ricochet is running/

    const fresh = await timeUntilOutput(scope, start, embedded, banner)
    await fresh.proc.stop()
    const again = await timeUntilOutput(scope, start, embedded, banner)
    const viaServer = await timeCommand(scope, [...cli, "workspace", "list"], embedded)
    await again.proc.stop()
    const noServer = await timeCommand(scope, [...cli, "workspace", "list"], embedded)

    const db = await createBenchDatabase(scope)
    const pgDir = await tempDir("ricochet-bench-startup-pg-")
    scope.defer("remove data dir", () => removeDir(pgDir))
    const onPostgres = { ...(await ports()), RICOCHET_DATA_DIR: pgDir, DATABASE_URL: db.url, NATS_URL: undefined }
    const control = await timeUntilOutput(scope, [...cli, "control"], onPostgres, banner)
    const pgList = await timeCommand(scope, [...cli, "workspace", "list"], onPostgres)
    const engine = await timeUntilReady(scope, [...cli, "engine"], onPostgres, `http://127.0.0.1:${onPostgres.RICOCHET_ENGINE_ADMIN_PORT}/readyz`)
    await engine.proc.stop()
    await control.proc.stop()
    return {
      "npm start: banner, fresh data dir": fresh,
      "npm start: banner, existing data dir": again,
      "CLI workspace list, embedded, server running": viaServer,
      "CLI workspace list, embedded, no server": noServer,
      "control alone: banner, PostgreSQL": control,
      "CLI workspace list, PostgreSQL": pgList,
      "engine alone: /readyz 200, PostgreSQL": engine
    }
  } finally {
    await scope.close()
  }
}

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

export default async function run(): Promise<ScenarioResult> {
  const loadBefore = loadavg()[0]
  const rounds: Record<Variant, Array<Record<Measure, Timed>>> = { built: [], source: [] }
  for (let round = 0; round < ROUNDS; round++) {
    // Alternating which goes first, as the machine's speed drifts.
    const order: ReadonlyArray<Variant> = round % 2 === 0 ? ["built", "source"] : ["source", "built"]
    for (const variant of order) rounds[variant].push(await measure(variant))
  }
  const loadAfter = loadavg()[0]
  const medianOf = (variant: Variant, name: Measure, of: (timed: Timed) => number | null) => {
    const values = rounds[variant].map((r) => of(r[name])).filter((v): v is number => v !== null)
    return values.length === 0 ? undefined : Math.round(median(values))
  }
  const figuresOf = (variant: Variant) => {
    const out: Record<string, number> = {}
    for (const name of MEASURES) {
      out[`${name} (ms)`] = medianOf(variant, name, (t) => t.ms)!
      const cpu = medianOf(variant, name, (t) => t.cpuMs)
      if (cpu !== undefined) out[`${name} (CPU ms)`] = cpu
    }
    return out
  }
  const built = figuresOf("built")
  const source = figuresOf("source")
  const goal = (text: string, name: Measure, limit: number) => ({ goal: text, value: built[`${name} (ms)`], met: built[`${name} (ms)`] <= limit })
  return {
    figures: built,
    baseline: source,
    ratios: Object.fromEntries(MEASURES.map((name) => [`${name}: source / built`, Math.round((source[`${name} (ms)`] / built[`${name} (ms)`]) * 10) / 10])),
    goals: [
      goal("banner on a fresh data directory ≤ 5,000 ms", "npm start: banner, fresh data dir", 5_000),
      goal("a CLI command ≤ 1,500 ms (PostgreSQL)", "CLI workspace list, PostgreSQL", 1_500),
      goal("a CLI command ≤ 1,500 ms (embedded, server running)", "CLI workspace list, embedded, server running", 1_500),
      goal("an engine ready ≤ 2,000 ms", "engine alone: /readyz 200, PostgreSQL", 2_000)
    ],
    notes: [
      `load average (1 min) ${loadBefore.toFixed(1)} when the scenario began, ${loadAfter.toFixed(1)} when it ended, on ${cpus().length} cores: the goals are for a quiet machine. The CPU ms figures (what npm, node and their children used until then, from /proc) do not grow with the load as the wall times do; on a quiet two-core machine a start takes about that long or less`,
      `medians of ${ROUNDS} rounds (BENCH_STARTUP_ROUNDS), built and source alternating which goes first; each through npm as an operator types it (npm adds its own start, about 0.2 s), from spawning npm until the banner line, /readyz 200 or the command's exit 0`,
      "built: npm start, npm run ricochet -- (node dist/…); baseline: npm run dev, npm run dev:ricochet -- (tsx main.ts, tsx cli/ricochet.ts: how every process ran before the build)",
      "the CLI with a server running reaches it over its admin channel; without one it opens the embedded database itself",
      "the engine alone runs on PostgreSQL (a control started it first), without NATS; fresh data directories and databases for every round"
    ]
  }
}
