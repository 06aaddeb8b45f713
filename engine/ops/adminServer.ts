import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import type { Sql } from "postgres"

/** How long /readyz waits for the database to answer `SELECT 1`. */
const READY_DATABASE_TIMEOUT_MS = 1_000

export interface AdminServerOptions {
  readonly host: string
  readonly port: number
  readonly sql: Sql
  readonly busConnected: () => boolean
  readonly metrics: () => Promise<string>
}

const databaseAnswers = (sql: Sql): Promise<boolean> =>
  new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), READY_DATABASE_TIMEOUT_MS)
    sql`SELECT 1`.then(() => resolve(true), () => resolve(false)).finally(() => clearTimeout(timer))
  })

/**
 * The engine's operator port (RICOCHET_ENGINE_ADMIN_HOST/PORT): /healthz, /readyz and /metrics,
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
        return void databaseAnswers(options.sql).then((database) => {
          const bus = options.busConnected()
          if (database && bus) return json(200, { status: "ready", database: "ok", bus: "ok" })
          const failing = [database ? undefined : "the database does not answer", bus ? undefined : "the change bus is disconnected"]
          json(503, {
            status: "not_ready",
            database: database ? "ok" : "unreachable",
            bus: bus ? "ok" : "disconnected",
            error: { code: "internal_server_error", message: `Not ready: ${failing.filter(Boolean).join("; ")}` }
          })
        })
      case "/metrics":
        return void options.metrics().then(
          (text) => res.writeHead(200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" }).end(text),
          (error) => {
            console.error("engine: /metrics failed", error)
            json(500, { error: { code: "internal_server_error", message: "The metrics could not be gathered" } })
          }
        )
      default:
        return json(404, { error: { code: "not_found", message: "The admin port serves /healthz, /readyz and /metrics" } })
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
