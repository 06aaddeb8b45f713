import { execFileSync } from "node:child_process"
import { readFile } from "node:fs/promises"

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
