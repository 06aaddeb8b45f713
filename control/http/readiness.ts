import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import type { Sql } from "postgres"
import { Database, DatabaseError } from "../../shared/db/Database.ts"
import { ChangeBus } from "../../shared/bus/ChangeBus.ts"

/** How long /readyz waits for the database to answer `SELECT 1`. */
export const READY_DATABASE_TIMEOUT_MS = 1_000

export type DatabaseState = "ok" | "timeout" | "unreachable"
export type BusState = "ok" | "disconnected"

/** What `SELECT 1` tells of the database: a failure or a late answer is the state /readyz reports, not an error. */
const probeDatabase = (sql: Sql, timeoutMs: number): Effect.Effect<DatabaseState> =>
  Effect.tryPromise({ try: () => sql`SELECT 1`, catch: (cause) => new DatabaseError({ cause }) }).pipe(
    Effect.as<DatabaseState>("ok"),
    Effect.timeoutOrElse({ duration: timeoutMs, orElse: () => Effect.succeed<DatabaseState>("timeout") }),
    Effect.catchTag("DatabaseError", () => Effect.succeed<DatabaseState>("unreachable"))
  )

/** The body and status of /readyz for the states found: what a load balancer or orchestrator reads. */
export const readinessReport = (database: DatabaseState, bus: BusState) => {
  if (database === "ok" && bus === "ok") return { status: 200, body: { status: "ready", database, bus } }
  const failing = [
    database === "timeout" ? `the database did not answer within ${READY_DATABASE_TIMEOUT_MS / 1000} s` : undefined,
    database === "unreachable" ? "the database cannot be reached" : undefined,
    bus === "disconnected" ? "the change bus is disconnected" : undefined
  ].filter((reason) => reason !== undefined)
  return {
    status: 503,
    body: {
      status: "not_ready",
      database,
      bus,
      error: { code: "internal_server_error", message: `Not ready: ${failing.join("; ")}` }
    }
  }
}

/**
 * GET /readyz: 200 while the database answers and the bus is connected, else 503 naming which
 * failed. Unlike /healthz (liveness: the process runs) it asks the database, and unlike the API it
 * counts no rate limit (that would ask the database too).
 */
export const readinessRoute = Effect.gen(function*() {
  const { sql } = yield* Database
  const bus = yield* ChangeBus
  const database = yield* probeDatabase(sql, READY_DATABASE_TIMEOUT_MS)
  const { status, body } = readinessReport(database, bus.isConnected() ? "ok" : "disconnected")
  return HttpServerResponse.jsonUnsafe(body, { status, headers: { "cache-control": "no-store" } })
})
