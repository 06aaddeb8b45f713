import { type ChildProcess, spawn } from "node:child_process"
import { mkdtemp, rm } from "node:fs/promises"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import * as path from "node:path"
import postgres from "postgres"
import { DIST, PROCESSES } from "../../scripts/build.ts"
import { sleep } from "./time.ts"

export const ROOT = path.resolve(import.meta.dirname, "../..")
export const ADMIN_DATABASE_URL = process.env.RICOCHET_TEST_PG ?? "postgres://postgres@127.0.0.1:5432/postgres"

/**
 * A free loopback port (released before the process under test binds it). Ports come from a
 * range of this test worker's own, below the kernel's ephemeral range (32768 and up), and are
 * never handed out twice by one worker: a port the kernel gives out for `listen(0)` can be handed
 * to the other worker, or to an outgoing connection, before the process under test binds it.
 */
const PORTS_PER_WORKER = 5_000
const portRange = (() => {
  const worker = Math.max(0, Number(process.env.VITEST_POOL_ID ?? "1") - 1) % 2
  const first = 21_000 + worker * PORTS_PER_WORKER
  return { first, last: first + PORTS_PER_WORKER - 1 }
})()
const handedOut = new Set<number>()

const bindable = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = createServer()
    server.once("error", () => resolve(false))
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)))
  })

export const freePort = async (): Promise<number> => {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = portRange.first + Math.floor(Math.random() * (portRange.last - portRange.first + 1))
    if (handedOut.has(port)) continue
    handedOut.add(port)
    if (await bindable(port)) return port
  }
  throw new Error(`no free port in ${portRange.first}-${portRange.last}`)
}

export const tempDir = (prefix = "ricochet-test-") => mkdtemp(path.join(tmpdir(), prefix))

/** A fresh PostgreSQL database for one test file, dropped afterwards. */
export const createTestDatabase = async (): Promise<{ url: string; drop: () => Promise<void> }> => {
  const name = `ricochet_t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
  const admin = postgres(ADMIN_DATABASE_URL, { max: 1, onnotice: () => {} })
  await admin.unsafe(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(ADMIN_DATABASE_URL)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      const again = postgres(ADMIN_DATABASE_URL, { max: 1, onnotice: () => {} })
      await again.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await again.end()
    }
  }
}

export interface RunningProcess {
  readonly child: ChildProcess
  readonly output: () => string
  /** Resolves with the exit code once the process has exited. */
  readonly exited: Promise<number | null>
  readonly stop: (signal?: NodeJS.Signals) => Promise<number | null>
}

/** Extra Node flags for the processes started, for profiling (`BENCH_NODE_ARGS="--cpu-prof"`). */
const EXTRA_NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter((arg) => arg !== "")

/** What `npm start` and `npm run ricochet` run for each process's source: its build (scripts/build.ts). */
const BUILT: ReadonlyMap<string, string> = new Map(PROCESSES.map(({ name, source }) => [source, path.join(DIST, `${name}.js`)]))

/**
 * Node's arguments for an entry point of the project, run as an operator runs it: a process
 * (main.ts, cli/ricochet.ts) from its build in dist/, which vitest's global setup keeps up to date
 * (test/support/freshBuild.ts); any other TypeScript file (a benchmark's helper) through tsx.
 */
export const nodeArgsFor = (entry: string): Array<string> => {
  const built = BUILT.get(entry)
  return built === undefined ? ["--import", "tsx", path.join(ROOT, entry)] : [built]
}

/** Runs an entry point of the project (`main.ts`, `cli/ricochet.ts`: their build, as `npm start` does). */
export const runTs = (entry: string, args: ReadonlyArray<string>, env: Record<string, string | undefined>): RunningProcess => {
  const child = spawn(process.execPath, [...EXTRA_NODE_ARGS, ...nodeArgsFor(entry), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout!.on("data", (chunk) => (output += chunk))
  child.stderr!.on("data", (chunk) => (output += chunk))
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  return {
    child,
    output: () => output,
    exited,
    stop: async (signal = "SIGTERM") => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      let killed = false
      const timer = setTimeout(() => {
        killed = true
        child.kill("SIGKILL")
      }, 30_000)
      const code = await exited
      clearTimeout(timer)
      // A graceful stop that did not end cleanly: show why, for whoever reads the failure.
      if (signal !== "SIGKILL" && code !== 0) {
        console.error(`${entry} stopped with ${killed ? "SIGKILL after 30 s" : `code ${code}, signal ${child.signalCode}`}; last output:\n${output.slice(-3000)}`)
      }
      return code
    }
  }
}

/** Runs the CLI to completion: `npm run ricochet -- ARGS`. */
export const runCli = async (args: ReadonlyArray<string>, env: Record<string, string | undefined>) => {
  const proc = runTs("cli/ricochet.ts", args, env)
  const code = await proc.exited
  return { code, output: proc.output() }
}

/** Runs the CLI to completion with `stdin` piped in (a password: the CLI reads it from a pipe). */
export const runCliPiped = async (args: ReadonlyArray<string>, env: Record<string, string | undefined>, stdin: string) => {
  const child = spawn(process.execPath, [...nodeArgsFor("cli/ricochet.ts"), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "pipe"]
  })
  let output = ""
  child.stdout!.on("data", (chunk) => (output += chunk))
  child.stderr!.on("data", (chunk) => (output += chunk))
  child.stdin!.end(stdin)
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve))
  return { code, output }
}

const waitFor = async (check: () => Promise<boolean>, timeoutMs: number, what: string, log: () => string) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return
    await sleep(100)
  }
  throw new Error(`${what} not ready after ${timeoutMs} ms; output:\n${log()}`)
}

export interface ControlHandle extends RunningProcess {
  readonly baseUrl: string
  readonly env: Record<string, string | undefined>
  /** The key printed on first start, when this start created the first workspace. */
  readonly firstKey: string | undefined
}

/**
 * Starts `main.ts` (npm start: control and an engine) or, with `alone`, `ricochet control`, and
 * waits until /healthz answers.
 */
export const startControl = async (env: Record<string, string | undefined>, alone = false): Promise<ControlHandle> => {
  const port = await freePort()
  const fullEnv = {
    RICOCHET_API_PORT: String(port),
    RICOCHET_ENGINE_PORT: String(await freePort()),
    RICOCHET_ENGINE_ADMIN_PORT: String(await freePort()),
    RICOCHET_CONTROL_ADMIN_PORT: String(await freePort()),
    RICOCHET_LISTEN_HOST: "127.0.0.1",
    ...env
  }
  const proc = alone ? runTs("cli/ricochet.ts", ["control"], fullEnv) : runTs("main.ts", [], fullEnv)
  const baseUrl = `http://127.0.0.1:${fullEnv.RICOCHET_API_PORT}`
  await waitFor(async () => {
    if (proc.child.exitCode !== null) throw new Error("exited")
    return (await fetch(`${baseUrl}/healthz`)).ok
  }, 120_000, "control", proc.output).catch(async (error) => {
    await proc.stop("SIGKILL")
    throw error
  })
  // npm start brings its engine up next to control: /healthz can answer before the engine listens,
  // and its first HTTP worker before the others and the start block (which holds the first key).
  if (!alone) {
    await waitFor(async () => {
      if (proc.child.exitCode !== null) throw new Error("exited")
      return proc.output().includes("Ricochet is running") &&
        (await fetch(`http://127.0.0.1:${fullEnv.RICOCHET_ENGINE_PORT}/.well-known/ricochet/status`)).ok
    }, 120_000, "engine", proc.output).catch(async (error) => {
      await proc.stop("SIGKILL")
      throw error
    })
  }
  const firstKey = /API key \(shown once, keep it\): (rico_\w+)/.exec(proc.output())?.[1]
  return { ...proc, baseUrl, env: fullEnv, firstKey }
}

/** A workspace made through the CLI, with its admin key. */
export const createWorkspace = async (env: Record<string, string | undefined>, plan = "pro", name = "Test workspace") => {
  const { code, output } = await runCli(["workspace", "create", "--name", name, "--plan", plan, "--json"], env)
  if (code !== 0) throw new Error(`workspace create failed (${code}): ${output}`)
  return JSON.parse(output.trim().split("\n").pop()!) as {
    workspace: { id: string; name: string; slug: string; plan: string }
    domain: string
    apiKey: string
  }
}

export const createKey = async (env: Record<string, string | undefined>, workspaceId: string, role: "admin" | "member") => {
  const { code, output } = await runCli(["key", "create", "--workspace", workspaceId, "--role", role, "--json"], env)
  if (code !== 0) throw new Error(`key create failed (${code}): ${output}`)
  return JSON.parse(output.trim().split("\n").pop()!) as { apiKey: string; role: string }
}

export const removeDir = (dir: string) => rm(dir, { recursive: true, force: true })

/** A small client for the API under test. */
export const apiClient = (baseUrl: string, key: string | undefined) => {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const init: RequestInit = { method, headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers } }
    if (body !== undefined) {
      if (typeof body === "string" || body instanceof URLSearchParams || body instanceof FormData) {
        init.body = body as BodyInit
      } else {
        init.body = JSON.stringify(body)
        ;(init.headers as Record<string, string>)["content-type"] = "application/json"
      }
    }
    const res = await fetch(`${baseUrl}${path}`, init)
    const text = await res.text()
    let json: any
    try {
      json = JSON.parse(text)
    } catch {
      json = text
    }
    return { status: res.status, headers: res.headers, body: json }
  }
  return {
    get: (path: string, headers?: Record<string, string>) => call("GET", path, undefined, headers),
    post: (path: string, body?: unknown, headers?: Record<string, string>) => call("POST", path, body, headers),
    patch: (path: string, body?: unknown, headers?: Record<string, string>) => call("PATCH", path, body, headers),
    delete: (path: string) => call("DELETE", path),
    call
  }
}

/** Waits until `check` passes (returns true), polling every `everyMs`. Returns the elapsed ms. */
export const eventually = async (check: () => Promise<boolean>, timeoutMs: number, everyMs = 20): Promise<number> => {
  const start = Date.now()
  while (Date.now() - start < timeoutMs) {
    if (await check().catch(() => false)) return Date.now() - start
    await sleep(everyMs)
  }
  throw new Error(`condition not met within ${timeoutMs} ms`)
}

/**
 * Waits for the next UTC minute when fewer than `seconds` are left of this one: what a limiter
 * with fixed one-minute windows counts must not be split over two windows.
 */
export const roomInThisMinute = async (seconds: number): Promise<void> => {
  const left = 60 - new Date().getUTCSeconds()
  if (left < seconds) await sleep(left * 1000 + 200)
}

/** Waits for the next UTC minute to begin: a fresh window of the limiters, whatever this one counted. */
export const nextMinute = (): Promise<void> => new Promise((r) => setTimeout(r, 60_000 - (Date.now() % 60_000) + 250))

/** Starts `ricochet engine` and waits until its port answers. */
export const startEngineProcess = async (env: Record<string, string | undefined>) => {
  const port = await freePort()
  const fullEnv = { RICOCHET_ENGINE_PORT: String(port), RICOCHET_ENGINE_ADMIN_PORT: String(await freePort()), RICOCHET_LISTEN_HOST: "127.0.0.1", ...env }
  const proc = runTs("cli/ricochet.ts", ["engine"], fullEnv)
  const baseUrl = `http://127.0.0.1:${port}`
  await waitFor(async () => {
    if (proc.child.exitCode !== null) throw new Error("exited")
    // Its first HTTP worker can answer before the others listen: ready once it says it serves.
    return proc.output().includes("Ricochet engine: redirects on") && (await fetch(`${baseUrl}/.well-known/ricochet/status`)).ok
  }, 120_000, "engine", proc.output).catch(async (error) => {
    await proc.stop("SIGKILL")
    throw error
  })
  return { ...proc, baseUrl, port, env: fullEnv }
}

/** A private NATS server on its own port, so a test can stop and restart it. */
export const startNats = async (
  port?: number,
  options: {
    readonly jetStreamDir?: string
    /** Clients must authenticate: with this user and password, or with this token. */
    readonly auth?: { readonly user: string; readonly pass: string } | { readonly token: string }
  } = {}
) => {
  const natsPort = port ?? (await freePort())
  const { spawn } = await import("node:child_process")
  // With a JetStream store directory (kept across restarts on the same port), as the installation's NATS runs.
  const jetStream = options.jetStreamDir === undefined ? [] : ["-js", "-sd", options.jetStreamDir]
  const auth = options.auth === undefined ? [] : "token" in options.auth ? ["--auth", options.auth.token] : ["--user", options.auth.user, "--pass", options.auth.pass]
  const child = spawn("/usr/sbin/nats-server", ["-a", "127.0.0.1", "-p", String(natsPort), ...jetStream, ...auth], { stdio: "ignore" })
  const { connect } = await import("node:net")
  await waitFor(
    () => new Promise<boolean>((resolve) => {
      const socket = connect(natsPort, "127.0.0.1", () => {
        socket.end()
        resolve(true)
      })
      socket.on("error", () => resolve(false))
    }),
    10_000,
    "nats",
    () => ""
  )
  return {
    port: natsPort,
    url: `nats://127.0.0.1:${natsPort}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once("exit", () => resolve())
        child.kill("SIGTERM")
      })
  }
}

/**
 * One request to an engine for host/path, without following redirects. node:http rather than
 * fetch, which does not let a caller set the Host header.
 */
export const visit = async (
  engineUrl: string,
  host: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {}
): Promise<{ status: number; location: string | null; headers: Record<string, string | string[] | undefined>; body: string }> => {
  const { request } = await import("node:http")
  const url = new URL(engineUrl)
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method: init.method ?? "GET",
        path,
        headers: {
          host,
          "user-agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
          ...init.headers
        },
        agent: false
      },
      (res) => {
        let body = ""
        res.setEncoding("utf8")
        res.on("data", (chunk) => (body += chunk))
        res.on("end", () => {
          const location = res.headers.location
          resolve({ status: res.statusCode ?? 0, location: typeof location === "string" ? location : null, headers: res.headers, body })
        })
      }
    )
    req.on("error", reject)
    req.end(init.body)
  })
}
