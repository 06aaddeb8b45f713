import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import type { Sql } from "postgres"
import { classifyAnswer } from "./classifyAnswer.ts"

/** How long /readyz waits for the database to answer `SELECT 1`. */
const READY_DATABASE_TIMEOUT_MS = 1_000

export interface AdminServerOptions {
  readonly host: string
  readonly port: number
  readonly sql: Sql
  readonly busConnected: () => boolean
  /** Links and domains this engine can answer without the database (its caches and last known answers). */
  readonly knownAnswers: () => Promise<number>
  readonly metrics: () => Promise<string>
}

/**
 * /readyz's answer: ready while the engine can serve, from the database or from what it already
 * knows. Without the bus it still redirects (its cache entries expire on their TTL), so a lost bus
 * is `degraded`; without the database it answers what it has cached, so it is unready only when
 * it knows nothing either, which is when a load balancer should send visitors elsewhere.
 */
export const engineReadiness = (database: boolean, bus: boolean, known: number) => {
  const warnings = [
    bus ? undefined : "the change bus is disconnected: changes reach this engine when its cache entries expire",
    database ? undefined : `the database does not answer: serving the ${known} links and domains already known`
  ].filter((warning) => warning !== undefined)
  const states = { database: database ? "ok" : "unreachable", bus: bus ? "ok" : "disconnected" }
  if (database || known > 0) {
    return { status: 200, body: warnings.length === 0 ? { status: "ready", ...states } : { status: "degraded", ...states, warning: warnings.join("; ") } }
  }
  return {
    status: 503,
    body: {
      status: "not_ready",
      ...states,
      error: { code: "internal_server_error", message: "Not ready: the database does not answer and nothing is cached to answer from" }
    }
  }
}

const databaseAnswers = (sql: Sql): Promise<boolean> =>
  new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), READY_DATABASE_TIMEOUT_MS)
    sql`SELECT 1`.then(() => resolve(true), () => resolve(false)).finally(() => clearTimeout(timer))
  })

/**
 * The engine's operator port (RICOCHET_ENGINE_ADMIN_HOST/PORT): /healthz, /readyz, /metrics and
 * /classify (engine/ops/classifyAnswer.ts),
 * apart from the visitors' port so a load balancer and Prometheus reach them without them being
 * answerable on every short-link host.
 */
export const startAdminServer = async (options: AdminServerOptions) => {
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" }).end(JSON.stringify(body))
    }
    if (req.method !== "GET" && req.method !== "HEAD") return json(405, { error: { code: "method_not_allowed", message: "Only GET" } })
    switch (path) {
      case "/healthz":
        return json(200, { status: "ok" })
      case "/readyz":
        return void databaseAnswers(options.sql).then(async (database) => {
          const known = database ? 0 : await options.knownAnswers().catch(() => 0)
          const { status, body } = engineReadiness(database, options.busConnected(), known)
          json(status, body)
        })
      case "/metrics":
        return void options.metrics().then(
          (text) => res.writeHead(200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" }).end(text),
          (error) => {
            console.error("engine: /metrics failed", error)
            json(500, { error: { code: "internal_server_error", message: "The metrics could not be gathered" } })
          }
        )
      case "/classify":
        return json(...classifyAnswer(req.url ?? "/"))
      default:
        return json(404, { error: { code: "not_found", message: "The admin port serves /healthz, /readyz, /metrics and /classify" } })
    }
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port, options.host, () => resolve())
  })
  return {
    port: (server.address() as AddressInfo).port,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}
