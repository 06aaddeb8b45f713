import { Effect } from "effect"
import type { Sql } from "postgres"
import { Database, DatabaseError } from "../../shared/db/Database.ts"
import { isDatabaseUnavailable } from "../../shared/db/unavailable.ts"
import { ApiError, databaseUnavailable } from "../http/ApiError.ts"
import { afterDatabaseCall } from "../outbox/signal.ts"

// During an outage every request fails the same way: one line every so often says so.
const UNAVAILABLE_LOG_EVERY_MS = 10_000
let lastUnavailableLog = 0

const unavailable = (cause: unknown): ApiError => {
  const now = Date.now()
  if (now - lastUnavailableLog >= UNAVAILABLE_LOG_EVERY_MS) {
    lastUnavailableLog = now
    console.warn(`database unavailable, answering 503: ${cause instanceof Error ? cause.message : String(cause)}`)
  }
  return databaseUnavailable()
}

/**
 * A promise of database work as an Effect: an ApiError it throws is the outcome, a database that
 * cannot be reached or timed out is a 503, anything else a DatabaseError (a logged 500).
 */
export const attempt = <A>(run: () => Promise<A>): Effect.Effect<A, ApiError | DatabaseError> =>
  Effect.tryPromise({
    try: () => run().finally(afterDatabaseCall),
    catch: (cause) =>
      cause instanceof ApiError ? cause : isDatabaseUnavailable(cause) ? unavailable(cause) : new DatabaseError({ cause })
  })

/**
 * Runs plain `postgres` code. Repositories are async functions over the client so SQL reads as
 * SQL; a repository throws an ApiError for a domain outcome (a unique slug taken, say). A call
 * that takes longer than the database timeout is answered 503; the pool's own bounds (see
 * client.ts) end the statement or the connection behind it.
 */
export const query = <A>(run: (sql: Sql) => Promise<A>): Effect.Effect<A, ApiError | DatabaseError, Database> =>
  Effect.gen(function*() {
    const { sql, queryTimeoutMs } = yield* Database
    const call = attempt(() => run(sql))
    if (queryTimeoutMs === undefined) return yield* call
    return yield* Effect.timeoutOrElse(call, {
      duration: queryTimeoutMs,
      orElse: () => Effect.fail(unavailable(new Error(`no answer within ${queryTimeoutMs} ms`)))
    })
  })
