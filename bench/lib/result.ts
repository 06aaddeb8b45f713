import { execSync } from "node:child_process"
import { mkdir, writeFile } from "node:fs/promises"
import { cpus, totalmem } from "node:os"
import * as path from "node:path"

/**
 * What every scenario returns. The harness prints it as a table and writes it to
 * bench/results/NAME.json with the machine and versions it ran on.
 */
export interface ScenarioResult {
  /** What was measured, e.g. { "requests/s": 71234, "p99 ms": 3.1 }. */
  readonly figures: Record<string, number | string>
  /** The baseline measured in the same run, with the same keys where they compare. */
  readonly baseline?: Record<string, number | string>
  /** Ratios against the baseline (or absolute checks), e.g. { "rate vs bare uWS": 0.82 }. */
  readonly ratios?: Record<string, number>
  /** Each goal of the issue with whether this run met it. */
  readonly goals?: ReadonlyArray<{ readonly goal: string; readonly value: number | string; readonly met: boolean }>
  /** The load generator used (autocannon or wrk) and anything a reader must know. */
  readonly notes?: ReadonlyArray<string>
}

export const machine = () => ({
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model ?? "unknown",
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  node: process.version,
  platform: `${process.platform}-${process.arch}`,
  commit: (() => {
    try {
      return execSync("git rev-parse --short HEAD", { stdio: ["ignore", "pipe", "ignore"] }).toString().trim()
    } catch {
      return "unknown"
    }
  })(),
  date: new Date().toISOString()
})

export const writeResult = async (name: string, result: ScenarioResult, versions: Record<string, string>) => {
  const dir = path.resolve(import.meta.dirname, "../results")
  await mkdir(dir, { recursive: true })
  const file = path.join(dir, `${name}.json`)
  await writeFile(file, JSON.stringify({ scenario: name, machine: machine(), versions, ...result }, null, 2) + "\n")
  return file
}
