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

const BUS_DEGRADED = "the change bus is disconnected: the API works, changes reach the engines once it is back " +
  "(their cached answers expire meanwhile)"

/**
 * The body and status of /readyz for the states found: what a load balancer or orchestrator reads.
 * Ready means "can serve the API", which needs the database only: without the bus control still
 * answers (the outbox keeps the changes until it is back), so a lost bus is `degraded`, never a
 * reason to take every control out of rotation at once.
 */
export const readinessReport = (database: DatabaseState, bus: BusState) => {
  if (database === "ok") {
    return bus === "ok"
      ? { status: 200, body: { status: "ready", database, bus } }
      : { status: 200, body: { status: "degraded", database, bus, warning: BUS_DEGRADED } }
  }
  const reason = database === "timeout"
    ? `the database did not answer within ${READY_DATABASE_TIMEOUT_MS / 1000} s`
    : "the database cannot be reached"
  return {
    status: 503,
    body: {
      status: "not_ready",
      database,
      bus,
      error: { code: "internal_server_error", message: `Not ready: ${reason}` }
    }
  }
}

/**
 * GET /readyz: 200 while the database answers (`degraded` when the bus is disconnected), else 503
 * naming why. Unlike /healthz (liveness: the process runs) it asks the database, and unlike the
 * API it counts no rate limit (that would ask the database too).
 */
export const readinessRoute = Effect.gen(function*() {
  const { sql } = yield* Database
  const bus = yield* ChangeBus
  const database = yield* probeDatabase(sql, READY_DATABASE_TIMEOUT_MS)
  const { status, body } = readinessReport(database, bus.isConnected() ? "ok" : "disconnected")
  return HttpServerResponse.jsonUnsafe(body, { status, headers: { "cache-control": "no-store" } })
})
