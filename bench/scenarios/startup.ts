import { type ChildProcess, spawn } from "node:child_process"
import { performance } from "node:perf_hooks"
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

/** `npm ARGS` in its own process group, so a stop reaches node behind npm and its shell. */
const npm = (scope: Scope, args: ReadonlyArray<string>, env: Record<string, string | undefined>): Started => {
  const child = spawn("npm", args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"], detached: true })
  let output = ""
  child.stdout!.on("data", (chunk) => (output += chunk))
  child.stderr!.on("data", (chunk) => (output += chunk))
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
  return { child, output: () => output, stop }
}

/** Ms from spawning `npm ARGS` until its output matches `ready`; the process keeps running. */
const timeUntilOutput = async (scope: Scope, args: ReadonlyArray<string>, env: Record<string, string | undefined>, ready: RegExp) => {
  const started = performance.now()
  const proc = npm(scope, args, env)
  for (;;) {
    if (ready.test(proc.output())) return { ms: performance.now() - started, proc }
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
    if (ok) return { ms: performance.now() - started, proc }
    if (proc.child.exitCode !== null) throw new Error(`npm ${args.join(" ")} exited ${proc.child.exitCode} before it was ready:\n${proc.output().slice(-3000)}`)
    if (performance.now() - started > TIMEOUT_MS) throw new Error(`npm ${args.join(" ")} not ready after ${TIMEOUT_MS} ms:\n${proc.output().slice(-3000)}`)
    await sleep(20)
  }
}

/** Ms from spawning a CLI command until it has exited 0. */
const timeCommand = async (scope: Scope, args: ReadonlyArray<string>, env: Record<string, string | undefined>) => {
  const started = performance.now()
  const proc = npm(scope, args, env)
  const code = await new Promise<number | null>((resolve) => (proc.child.exitCode !== null ? resolve(proc.child.exitCode) : proc.child.once("exit", resolve)))
  const ms = performance.now() - started
  if (code !== 0) throw new Error(`npm ${args.join(" ")} exited ${code}:\n${proc.output().slice(-3000)}`)
  await proc.stop()
  return ms
}

const FIGURES = [
  "npm start: banner, fresh data dir (ms)",
  "npm start: banner, existing data dir (ms)",
  "CLI workspace list, embedded, server running (ms)",
  "CLI workspace list, embedded, no server (ms)",
  "control alone: banner, PostgreSQL (ms)",
  "CLI workspace list, PostgreSQL (ms)",
  "engine alone: /readyz 200, PostgreSQL (ms)"
] as const
type Figure = (typeof FIGURES)[number]

/** One round of every measurement for one variant, each process on its own ports and data. */
const measure = async (variant: Variant): Promise<Record<Figure, number>> => {
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
      "npm start: banner, fresh data dir (ms)": fresh.ms,
      "npm start: banner, existing data dir (ms)": again.ms,
      "CLI workspace list, embedded, server running (ms)": viaServer,
      "CLI workspace list, embedded, no server (ms)": noServer,
      "control alone: banner, PostgreSQL (ms)": control.ms,
      "CLI workspace list, PostgreSQL (ms)": pgList,
      "engine alone: /readyz 200, PostgreSQL (ms)": engine.ms
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
  const rounds: Record<Variant, Array<Record<Figure, number>>> = { built: [], source: [] }
  for (let round = 0; round < ROUNDS; round++) {
    // Alternating which goes first, as the machine's speed drifts.
    const order: ReadonlyArray<Variant> = round % 2 === 0 ? ["built", "source"] : ["source", "built"]
    for (const variant of order) rounds[variant].push(await measure(variant))
  }
  const medians = (variant: Variant) =>
    Object.fromEntries(FIGURES.map((figure) => [figure, Math.round(median(rounds[variant].map((r) => r[figure])))])) as Record<Figure, number>
  const built = medians("built")
  const source = medians("source")
  const goal = (text: string, figure: Figure, limit: number) => ({ goal: text, value: built[figure], met: built[figure] <= limit })
  return {
    figures: built,
    baseline: source,
    ratios: Object.fromEntries(FIGURES.map((figure) => [`${figure.replace(/ \(ms\)$/, "")}: source / built`, Math.round((source[figure] / built[figure]) * 10) / 10])),
    goals: [
      goal("banner on a fresh data directory ≤ 5,000 ms", "npm start: banner, fresh data dir (ms)", 5_000),
      goal("a CLI command ≤ 1,500 ms (PostgreSQL)", "CLI workspace list, PostgreSQL (ms)", 1_500),
      goal("a CLI command ≤ 1,500 ms (embedded, server running)", "CLI workspace list, embedded, server running (ms)", 1_500),
      goal("an engine ready ≤ 2,000 ms", "engine alone: /readyz 200, PostgreSQL (ms)", 2_000)
    ],
    notes: [
      `medians of ${ROUNDS} rounds (BENCH_STARTUP_ROUNDS), built and source alternating which goes first; each through npm as an operator types it (npm adds its own start, about 0.2 s), from spawning npm until the banner line, /readyz 200 or the command's exit 0`,
      "built: npm start, npm run ricochet -- (node dist/…); baseline: npm run dev, npm run dev:ricochet -- (tsx main.ts, tsx cli/ricochet.ts: how every process ran before the build)",
      "the CLI with a server running reaches it over its admin channel; without one it opens the embedded database itself",
      "the engine alone runs on PostgreSQL (a control started it first), without NATS; fresh data directories and databases for every round"
    ]
  }
}
