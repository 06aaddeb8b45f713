// The container's health check (Dockerfile HEALTHCHECK): `node cli/healthcheck.mjs [PID]`.
// Plain JavaScript, so each check starts in tens of milliseconds rather than loading tsx.
//
// One image runs every role, and the check follows the one its server process (PID 1, or PID)
// was started with: control's /readyz on RICOCHET_API_PORT, an engine's on its operator port
// (RICOCHET_ENGINE_ADMIN_PORT), both for `main.ts` (npm start). Exit 0 when every probe answers
// 200, else 1 with one line saying which did not (Docker keeps it in the container's health log).
import { readFileSync } from "node:fs"
import { pathToFileURL } from "node:url"

const TIMEOUT_MS = 2_500

/**
 * The role a server process runs, from its command line: `control` or `engine` (`ricochet.ts
 * control|engine`), `all` (main.ts), or undefined for anything else (a one-off CLI command).
 * @param {ReadonlyArray<string>} argv
 * @returns {"control" | "engine" | "all" | undefined}
 */
export const roleOf = (argv) => {
  const cli = argv.findIndex((arg) => /(^|\/)ricochet\.[cm]?[jt]s$/.test(arg))
  if (cli >= 0) {
    const command = argv[cli + 1]
    return command === "control" || command === "engine" ? command : undefined
  }
  return argv.some((arg) => /(^|\/)main\.[cm]?[jt]s$/.test(arg)) ? "all" : undefined
}

/**
 * Where a check reaches a server bound to `host`: itself, unless it binds every address.
 * @param {string | undefined} host
 */
const reachable = (host) => {
  if (host === undefined || host === "" || host === "0.0.0.0" || host === "::") return "127.0.0.1"
  return host.includes(":") ? `[${host}]` : host
}

/**
 * The readiness URLs of a role, with the settings the server reads (docs/configuration.md).
 * @param {"control" | "engine" | "all"} role
 * @param {Readonly<Record<string, string | undefined>>} env
 * @returns {Array<string>}
 */
export const probesFor = (role, env) => {
  const listenHost = env.RICOCHET_LISTEN_HOST || undefined
  const control = `http://${reachable(listenHost)}:${env.RICOCHET_API_PORT || 3000}/readyz`
  const engine = `http://${reachable(env.RICOCHET_ENGINE_ADMIN_HOST || listenHost)}:${env.RICOCHET_ENGINE_ADMIN_PORT || 9464}/readyz`
  return role === "control" ? [control] : role === "engine" ? [engine] : [control, engine]
}

/**
 * @param {string} url
 * @returns {Promise<string | undefined>} why the probe failed, or undefined
 */
const probe = async (url) => {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) })
    await response.body?.cancel()
    return response.status === 200 ? undefined : `${url} answered ${response.status}`
  } catch (error) {
    return `${url} did not answer (${error instanceof Error ? error.message : String(error)})`
  }
}

const main = async () => {
  const pid = process.argv[2] ?? "1"
  const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter((arg) => arg !== "")
  const role = roleOf(argv)
  if (role === undefined) {
    console.log(`no server in this container (${argv.join(" ")}): nothing to check`)
    return 0
  }
  const failures = (await Promise.all(probesFor(role, process.env).map(probe))).filter((failure) => failure !== undefined)
  if (failures.length === 0) return 0
  console.log(`${role} not ready: ${failures.join("; ")}`)
  return 1
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then((code) => process.exit(code), (error) => {
    console.log(`health check failed: ${error instanceof Error ? error.message : String(error)}`)
    process.exit(1)
  })
}
