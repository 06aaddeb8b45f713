import { readdir, readFile } from "node:fs/promises"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import postgres from "postgres"
import { buildIfStale } from "../scripts/build.ts"
import { loadTool, loadToolVersion, stopLoads } from "./lib/load.ts"
import { ADMIN_DATABASE_URL, closeAllScopes } from "./lib/processes.ts"
import { machine, type ScenarioResult, writeResult } from "./lib/result.ts"

/**
 * `npm run bench` runs every scenario of bench/scenarios/ in name order; `npm run bench -- NAME...`
 * runs the ones named. Each prints a table and writes bench/results/NAME.json. Results are
 * figures to read, never assertions: a missed goal does not fail the run, a scenario that
 * cannot run does (exit 1).
 *
 * Settings (environment): BENCH_DURATION seconds per load phase (10), BENCH_CONNECTIONS (50),
 * BENCH_TOOL=autocannon to use autocannon even when /usr/bin/wrk exists, BENCH_THREADS wrk threads (1).
 */

interface Scenario {
  readonly name: string
  readonly file: string
}

const ROOT = path.resolve(import.meta.dirname, "..")
const SCENARIOS = path.join(import.meta.dirname, "scenarios")

const discover = async (): Promise<Array<Scenario>> =>
  (await readdir(SCENARIOS))
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))
    .sort()
    .map((f) => ({ name: f.slice(0, -3), file: path.join(SCENARIOS, f) }))

const packageVersion = async (name: string): Promise<string> => {
  try {
    const pkg = JSON.parse(await readFile(path.join(ROOT, "node_modules", name, "package.json"), "utf8")) as { name: string; version: string }
    return pkg.name === name ? pkg.version : `${pkg.version} (${pkg.name})`
  } catch {
    return "not installed"
  }
}

const postgresServerVersion = async (): Promise<string> => {
  const sql = postgres(ADMIN_DATABASE_URL, { max: 1, onnotice: () => {}, connect_timeout: 5 })
  try {
    const [row] = await sql<{ server_version: string }[]>`SHOW server_version`
    return row.server_version
  } catch {
    return "unreachable"
  } finally {
    await sql.end({ timeout: 2 }).catch(() => {})
  }
}

const versions = async (): Promise<Record<string, string>> => ({
  node: process.version,
  "uWebSockets.js": await packageVersion("uWebSockets.js"),
  effect: await packageVersion("effect"),
  "@duckdb/node-api": await packageVersion("@duckdb/node-api"),
  "postgres (client)": await packageVersion("postgres"),
  "PostgreSQL server": await postgresServerVersion(),
  "lru-cache": await packageVersion("lru-cache"),
  nats: await packageVersion("nats"),
  tsx: await packageVersion("tsx"),
  esbuild: await packageVersion("esbuild"),
  "load generator": await loadToolVersion()
})

// ---------------------------------------------------------------------------------------------
// Printing

const fmt = (value: number | string | undefined): string => {
  if (value === undefined) return ""
  if (typeof value === "string") return value
  if (Number.isInteger(value)) return value.toLocaleString("en-US")
  return String(value)
}

const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)))
  const line = (cells: ReadonlyArray<string>) =>
    "  " + cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ").trimEnd()
  return [line(header), "  " + widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n")
}

const print = (name: string, result: ScenarioResult) => {
  const keys = [...new Set([...Object.keys(result.figures), ...Object.keys(result.baseline ?? {})])]
  const out: Array<string> = [`\n== ${name}`]
  out.push(table(["figure", "measured", "baseline"], keys.map((k) => [k, fmt(result.figures[k]), fmt(result.baseline?.[k])])))
  if (result.ratios && Object.keys(result.ratios).length > 0) {
    out.push("")
    out.push(table(["ratio", "value"], Object.entries(result.ratios).map(([k, v]) => [k, fmt(v)])))
  }
  if (result.goals && result.goals.length > 0) {
    out.push("")
    out.push(table(["goal", "value", "result"], result.goals.map((g) => [g.goal, fmt(g.value), g.met ? "met" : "NOT MET"])))
  }
  for (const note of result.notes ?? []) out.push(`  - ${note}`)
  console.log(out.join("\n"))
}

// ---------------------------------------------------------------------------------------------

const main = async () => {
  const all = await discover()
  const wanted = process.argv.slice(2).filter((a) => a !== "--")
  const unknown = wanted.filter((w) => !all.some((s) => s.name === w))
  if (unknown.length > 0) {
    console.error(`bench: no scenario ${unknown.join(", ")}; there are: ${all.map((s) => s.name).join(", ")}`)
    process.exit(2)
  }
  const chosen = wanted.length === 0 ? all : all.filter((s) => wanted.includes(s.name))

  let interrupted = false
  const stop = (signal: NodeJS.Signals) => {
    if (interrupted) return
    interrupted = true
    console.error(`\nbench: ${signal}, stopping the processes started so far...`)
    stopLoads()
    closeAllScopes().finally(() => process.exit(130))
  }
  process.on("SIGINT", stop)
  process.on("SIGTERM", stop)

  // The processes run dist/ (npm start does): built again first when a source changed since.
  if (await buildIfStale()) console.log("bench: built dist/ (a source had changed since the last build)")
  const m = machine()
  const v = await versions()
  console.log(`Ricochet benchmarks: ${chosen.map((s) => s.name).join(", ")}`)
  console.log(`machine: ${m.cpus} x ${m.cpuModel}, ${m.memoryGiB} GiB, ${m.platform}, node ${m.node}, commit ${m.commit}`)
  console.log(`load: ${loadTool()} (${v["load generator"]}), ${process.env.BENCH_DURATION ?? 10} s per phase, ${process.env.BENCH_CONNECTIONS ?? 50} connections`)

  const summary: Array<Array<string>> = []
  let failed = 0
  for (const scenario of chosen) {
    const mod = (await import(pathToFileURL(scenario.file).href)) as { default: () => Promise<ScenarioResult>; description?: string }
    console.log(`\n-- ${scenario.name}: ${mod.description ?? ""}`)
    const started = Date.now()
    try {
      const result = await mod.default()
      print(scenario.name, result)
      const file = await writeResult(scenario.name, result, v)
      console.log(`  written: ${path.relative(process.cwd(), file)} (${((Date.now() - started) / 1000).toFixed(1)} s)`)
      const goals = result.goals ?? []
      summary.push([scenario.name, `${goals.filter((g) => g.met).length}/${goals.length} goals met`])
    } catch (error) {
      failed++
      if (interrupted) {
        summary.push([scenario.name, "interrupted"])
      } else {
        console.error(`  ${scenario.name} FAILED: ${error instanceof Error ? error.stack ?? error.message : String(error)}`)
        summary.push([scenario.name, "failed to run"])
      }
    } finally {
      await closeAllScopes()
    }
    if (interrupted) break
  }
  console.log("\n== summary")
  console.log(table(["scenario", "result"], summary))
  process.exit(interrupted ? 130 : failed > 0 ? 1 : 0)
}

main().catch(async (error) => {
  console.error(error)
  await closeAllScopes()
  process.exit(1)
})
