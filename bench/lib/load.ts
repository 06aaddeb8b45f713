import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import * as path from "node:path"

/**
 * One load phase against a server on loopback: wrk when /usr/bin/wrk exists (a small Lua script
 * sets the paths; the Host header and the others go as -H), else autocannon's programmatic API.
 * Both send the Host header of the short-link domain and the same headers on every request.
 */
export interface LoadOptions {
  /** Where to connect, e.g. http://127.0.0.1:8080 (any path in it is ignored). */
  readonly url: string
  /** Host header (the short-link domain); defaults to the URL's host. */
  readonly host?: string
  /** One path for every request... */
  readonly path?: string
  /** ...or a list of paths, taken in turn (rotate) or at random. */
  readonly paths?: ReadonlyArray<string>
  readonly order?: "rotate" | "random"
  /** ...or a fresh random slug per request: `/${prefix}${length random [A-Za-z0-9]}`. */
  readonly randomSlug?: { readonly prefix?: string; readonly length: number }
  readonly connections: number
  readonly durationSec: number
  readonly headers?: Readonly<Record<string, string>>
}

export interface LoadResult {
  readonly tool: "wrk" | "autocannon"
  readonly requests: number
  readonly durationSec: number
  readonly requestsPerSec: number
  readonly latencyP50Ms: number
  readonly latencyP99Ms: number
  readonly latencyMaxMs: number
  /** Responses whose status is not 2xx or 3xx. */
  readonly non2xx3xx: number
  /** Connection errors and timeouts. */
  readonly errors: number
}

const WRK = "/usr/bin/wrk"

/** The load generator this run uses: wrk when present, unless BENCH_TOOL=autocannon. */
export const loadTool = (): "wrk" | "autocannon" =>
  process.env.BENCH_TOOL === "autocannon" || !existsSync(WRK) ? "autocannon" : "wrk"

/** wrk threads: 1 by default, so that on a 2-core machine the server under test keeps one core. */
const wrkThreads = () => Math.max(1, Number(process.env.BENCH_THREADS ?? 1) || 1)

export const loadToolVersion = async (): Promise<string> => {
  if (loadTool() === "autocannon") {
    const require = createRequire(import.meta.url)
    return `autocannon ${(require("autocannon/package.json") as { version: string }).version}`
  }
  const { output } = await runWrk(["-v"], 5_000)
  return /wrk (\S+)/.exec(output)?.[0] ?? "wrk"
}

export const load = (options: LoadOptions): Promise<LoadResult> => {
  if (options.path === undefined && options.paths === undefined && options.randomSlug === undefined) {
    throw new Error("load: give path, paths or randomSlug")
  }
  if (options.paths !== undefined && options.paths.length === 0) throw new Error("load: paths is empty")
  return loadTool() === "wrk" ? loadWithWrk(options) : loadWithAutocannon(options)
}

// ---------------------------------------------------------------------------------------------
// wrk

/**
 * Paths come from a file, one a line, pre-formatted into requests in init() so that the per
 * request cost in Lua is one table lookup. With several threads each takes every n-th path, so
 * a rotation never repeats a path across threads before the list is used up.
 */
const WRK_SCRIPT = `
local counter = 0
function setup(thread)
  thread:set("tid", counter)
  counter = counter + 1
end

local reqs = {}
local n = 0
local i = 0
local order = "rotate"
local randlen = 0
local prefix = "/"
local chars = {}

function init(args)
  local file, nthreads = args[1], tonumber(args[4])
  order = args[2]
  randlen = tonumber(args[3])
  prefix = args[5] or "/"
  local alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
  for k = 1, #alphabet do chars[k] = alphabet:sub(k, k) end
  math.randomseed(os.time() * 1000 + tid * 7919)
  if randlen == 0 then
    local line = 0
    for p in io.lines(file) do
      if line % nthreads == tid then
        n = n + 1
        reqs[n] = wrk.format(nil, p)
      end
      line = line + 1
    end
    if n == 0 then
      n = 1
      reqs[1] = wrk.format(nil, "/")
    end
  end
end

function request()
  if randlen > 0 then
    local t = {}
    for k = 1, randlen do t[k] = chars[math.random(62)] end
    return wrk.format(nil, prefix .. table.concat(t))
  end
  if order == "random" then return reqs[math.random(n)] end
  i = i + 1
  if i > n then i = 1 end
  return reqs[i]
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"duration_us":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50":%f,"p99":%f,"max":%f}\\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
`

const running = new Set<{ stop: () => void }>()

/** Stops the load phases under way (the harness calls it when interrupted). */
export const stopLoads = () => {
  for (const r of running) r.stop()
}

const runWrk = (args: ReadonlyArray<string>, timeoutMs: number): Promise<{ code: number | null; output: string; stdout: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn(WRK, args, { stdio: ["ignore", "pipe", "pipe"] })
    const handle = { stop: () => child.kill("SIGKILL") }
    running.add(handle)
    child.once("exit", () => running.delete(handle))
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs)
    child.once("error", (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.once("exit", (code) => {
      clearTimeout(timer)
      resolve({ code, output: stdout + stderr, stdout })
    })
  })

const loadWithWrk = async (options: LoadOptions): Promise<LoadResult> => {
  const dir = await mkdtemp(path.join(tmpdir(), "ricochet-wrk-"))
  try {
    const script = path.join(dir, "paths.lua")
    const pathsFile = path.join(dir, "paths.txt")
    await writeFile(script, WRK_SCRIPT)
    await writeFile(pathsFile, options.randomSlug !== undefined ? "/\n" : (options.paths ?? [options.path!]).join("\n") + "\n")
    const target = new URL(options.url)
    const headers: Record<string, string> = { Host: options.host ?? target.host, ...options.headers }
    const threads = Math.min(wrkThreads(), options.connections)
    const args = [
      "-t", String(threads),
      "-c", String(options.connections),
      "-d", `${Math.max(1, Math.round(options.durationSec))}s`,
      "--timeout", "10s",
      ...Object.entries(headers).flatMap(([name, value]) => ["-H", `${name}: ${value}`]),
      "-s", script,
      `${target.protocol}//${target.host}/`,
      "--",
      pathsFile,
      options.order ?? "rotate",
      String(options.randomSlug?.length ?? 0),
      String(threads),
      `/${options.randomSlug?.prefix ?? ""}`
    ]
    const { code, output, stdout } = await runWrk(args, (options.durationSec + 60) * 1000)
    const line = /BENCH_JSON (.*)/.exec(stdout)?.[1]
    if (code !== 0 || line === undefined) throw new Error(`wrk failed (exit ${code}):\n${output}`)
    const r = JSON.parse(line) as Record<string, number>
    const durationSec = r.duration_us / 1e6
    return {
      tool: "wrk",
      requests: r.requests,
      durationSec,
      requestsPerSec: r.requests / durationSec,
      latencyP50Ms: r.p50 / 1000,
      latencyP99Ms: r.p99 / 1000,
      latencyMaxMs: r.max / 1000,
      // wrk counts responses with a status of 400 or more as "status" errors.
      non2xx3xx: r.status,
      errors: r.connect + r.read + r.write + r.timeout
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

// ---------------------------------------------------------------------------------------------
// autocannon

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

const loadWithAutocannon = async (options: LoadOptions): Promise<LoadResult> => {
  const { default: autocannon } = await import("autocannon")
  const target = new URL(options.url)
  let next: () => string
  if (options.randomSlug !== undefined) {
    const { prefix = "", length } = options.randomSlug
    next = () => {
      let slug = `/${prefix}`
      for (let k = 0; k < length; k++) slug += ALPHABET[Math.floor(Math.random() * 62)]
      return slug
    }
  } else {
    const paths = options.paths ?? [options.path!]
    let i = -1
    next = options.order === "random"
      ? () => paths[Math.floor(Math.random() * paths.length)]
      : () => paths[(i = (i + 1) % paths.length)]
  }
  const dynamic = options.randomSlug !== undefined || (options.paths?.length ?? 1) > 1
  const instance = autocannon({
    url: `${target.protocol}//${target.host}${dynamic ? "/" : options.path ?? options.paths![0]}`,
    connections: options.connections,
    duration: options.durationSec,
    timeout: 10,
    headers: { host: options.host ?? target.host, ...options.headers },
    ...(dynamic ? { requests: [{ setupRequest: (request) => ({ ...request, path: next() }) }] } : {})
  })
  const handle = { stop: () => instance.stop() }
  running.add(handle)
  const result = await instance.then((r) => r, (e) => {
    running.delete(handle)
    throw e
  })
  running.delete(handle)
  let non2xx3xx = 0
  for (const [code, { count }] of Object.entries(result.statusCodeStats ?? {})) {
    if (Number(code) < 200 || Number(code) >= 400) non2xx3xx += count
  }
  return {
    tool: "autocannon",
    requests: result.requests.total,
    durationSec: result.duration,
    requestsPerSec: result.requests.total / result.duration,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    latencyMaxMs: result.latency.max,
    non2xx3xx,
    errors: result.errors + result.timeouts
  }
}

/** Rounds for tables: 3 significant decimals for small numbers, integers for large ones. */
export const round = (value: number, digits = 2): number => {
  if (!Number.isFinite(value)) return value
  if (Math.abs(value) >= 1000) return Math.round(value)
  const f = 10 ** digits
  return Math.round(value * f) / f
}

/** Duration and connections of every load phase: BENCH_DURATION (s, default 10), BENCH_CONNECTIONS (default 50). */
export const settings = () => {
  const durationSec = Number(process.env.BENCH_DURATION ?? 10)
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 50)
  if (!(durationSec > 0)) throw new Error(`BENCH_DURATION must be a positive number of seconds (got ${process.env.BENCH_DURATION})`)
  if (!(connections >= 1)) throw new Error(`BENCH_CONNECTIONS must be 1 or more (got ${process.env.BENCH_CONNECTIONS})`)
  return { durationSec, connections: Math.floor(connections) }
}

/** A line for notes: which tool, with how many connections and threads, for how long. */
export const loadNote = (connections: number, durationSec: number) =>
  loadTool() === "wrk"
    ? `load: wrk (/usr/bin/wrk, ${Math.min(Math.max(1, Number(process.env.BENCH_THREADS ?? 1) || 1), connections)} thread(s), Lua script for Host header and paths), ${connections} connections, ${durationSec} s per phase`
    : `load: autocannon (programmatic API, ${process.env.BENCH_TOOL === "autocannon" ? "BENCH_TOOL=autocannon" : "no /usr/bin/wrk"}; latencies in whole ms), ${connections} connections, ${durationSec} s per phase`

/** A load phase that saw errors or unexpected statuses is reported, not hidden. */
export const problems = (label: string, r: LoadResult): Array<string> =>
  r.errors > 0 || r.non2xx3xx > 0 ? [`${label}: ${r.errors} connection errors/timeouts, ${r.non2xx3xx} responses not 2xx/3xx`] : []
