import { execFileSync } from "node:child_process"
import { readdir, readFile } from "node:fs/promises"

/**
 * CPU time a process has used, all its threads and its main thread alone, from /proc (Linux;
 * null elsewhere). Divided by the requests served in between, it shows what each request costs
 * the server regardless of how the load generator and the server share the cores.
 */
export interface CpuTime {
  readonly processMicros: number
  readonly mainThreadMicros: number
}

let ticksPerSecond: number | undefined
const clockTicks = (): number => {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100
    } catch {
      ticksPerSecond = 100
    }
  }
  return ticksPerSecond
}

/** utime + stime of a /proc stat line, in µs (fields 14 and 15, counted after the command name). */
const statMicros = (stat: string): number => {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / clockTicks()
}

export const cpuTime = async (pid: number | undefined): Promise<CpuTime | null> => {
  if (pid === undefined || process.platform !== "linux") return null
  try {
    const [whole, main] = await Promise.all([readFile(`/proc/${pid}/stat`, "utf8"), readFile(`/proc/${pid}/task/${pid}/stat`, "utf8")])
    return { processMicros: statMicros(whole), mainThreadMicros: statMicros(main) }
  } catch {
    return null
  }
}

/** CPU µs per request between two readings (null when either is missing). */
export const cpuPerRequest = (before: CpuTime | null, after: CpuTime | null, requests: number) =>
  before === null || after === null || requests === 0
    ? null
    : {
      process: (after.processMicros - before.processMicros) / requests,
      mainThread: (after.mainThreadMicros - before.mainThreadMicros) / requests
    }

/**
 * CPU ms of a /proc stat line: utime + stime, and with `children` also cutime + cstime (what the
 * children it has waited for used, theirs included).
 */
export const statMillis = (stat: string, children: boolean): number => {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ").map(Number)
  const ticks = fields[11] + fields[12] + (children ? fields[13] + fields[14] : 0)
  return (ticks * 1000) / clockTicks()
}

/**
 * CPU ms used so far by every process of a process group (npm, its shell, node and its threads,
 * and the children they have waited for): what a start has cost, whatever else the machine ran
 * meanwhile. null where there is no /proc.
 */
export const groupCpuMillis = async (pgid: number): Promise<number | null> => {
  if (process.platform !== "linux") return null
  let total = 0
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => undefined)
    if (stat === undefined) continue
    const pgrp = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2])
    if (pgrp === pgid) total += statMillis(stat, true)
  }
  return total
}
