import { type ChildProcess, spawn } from "node:child_process"
import { mkdtemp, rm } from "node:fs/promises"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import * as path from "node:path"
import postgres from "postgres"

export const ROOT = path.resolve(import.meta.dirname, "../..")
export const ADMIN_DATABASE_URL = process.env.RICOCHET_TEST_PG ?? "postgres://postgres@127.0.0.1:5432/postgres"

/** A free loopback port (released before the process under test binds it). */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

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

/** Runs a TypeScript entry point of the project under Node with tsx, as `npm start` does. */
export const runTs = (entry: string, args: ReadonlyArray<string>, env: Record<string, string | undefined>): RunningProcess => {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, entry), ...args], {
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
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000)
      const code = await exited
      clearTimeout(timer)
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

const waitFor = async (check: () => Promise<boolean>, timeoutMs: number, what: string, log: () => string) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`${what} not ready after ${timeoutMs} ms; output:\n${log()}`)
}

export interface ControlHandle extends RunningProcess {
  readonly baseUrl: string
  readonly env: Record<string, string | undefined>
  /** The key printed on first start, when this start created the first workspace. */
  readonly firstKey: string | undefined
}

/** Starts `main.ts` (npm start) and waits until /healthz answers. */
export const startControl = async (env: Record<string, string | undefined>): Promise<ControlHandle> => {
  const port = await freePort()
  const fullEnv = { RICOCHET_API_PORT: String(port), RICOCHET_ENGINE_PORT: String(await freePort()), RICOCHET_LISTEN_HOST: "127.0.0.1", ...env }
  const proc = runTs("main.ts", [], fullEnv)
  const baseUrl = `http://127.0.0.1:${fullEnv.RICOCHET_API_PORT}`
  await waitFor(async () => {
    if (proc.child.exitCode !== null) throw new Error("exited")
    return (await fetch(`${baseUrl}/healthz`)).ok
  }, 60_000, "control", proc.output)
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
