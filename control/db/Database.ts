import { Context, Data, Effect, Layer } from "effect"
import type { Sql, TransactionSql } from "postgres"
import { ApiError, databaseUnavailable } from "../http/ApiError.ts"
import { afterDatabaseCall } from "../outbox/signal.ts"
import { openEmbedded } from "./embedded.ts"
import { openPostgres } from "./client.ts"
import { migrate } from "./migrate.ts"
import { isDatabaseUnavailable } from "./unavailable.ts"

/** Anything the database threw that is not a domain error: a logged 500, never shown to clients. */
export class DatabaseError extends Data.TaggedError("DatabaseError")<{ readonly cause: unknown }> {}

export class Database extends Context.Service<Database, {
  readonly sql: Sql
  /** "embedded" (PGlite in the data directory) or "postgres" (DATABASE_URL). */
  readonly kind: "embedded" | "postgres"
  /** How long `query` waits for a call before answering 503; undefined: as long as it takes. */
  readonly queryTimeoutMs: number | undefined
}>()("ricochet/Database") {}

/** What a repository function runs on: the pool, or a transaction it is part of. */
export type Queryable = Sql | TransactionSql

/** PostgreSQL's unique_violation, optionally of one constraint. */
export const isUniqueViolation = (error: unknown, constraint?: string): boolean =>
  typeof error === "object" && error !== null && (error as { code?: string }).code === "23505" &&
  (constraint === undefined || (error as { constraint_name?: string }).constraint_name === constraint)

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

/**
 * PostgreSQL at DATABASE_URL, migrated before anything uses it. Migrations run on a connection of
 * their own without the timeouts (an index build may take minutes); the pool is bounded by
 * `timeoutSeconds` (RICOCHET_DB_TIMEOUT_SECONDS).
 */
export const postgresLayer = (url: string, timeoutSeconds: number, max = 10): Layer.Layer<Database, DatabaseError> =>
  Layer.effect(Database)(
    Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const migrator = openPostgres(url, 1)
          try {
            await migrate(migrator)
          } finally {
            await migrator.end({ timeout: 1 })
          }
          return Database.of({ sql: openPostgres(url, max, timeoutSeconds), kind: "postgres", queryTimeoutMs: timeoutSeconds * 1000 })
        },
        catch: (cause) => new DatabaseError({ cause })
      }),
      ({ sql }) => Effect.promise(() => sql.end({ timeout: 5 }))
    )
  )

/**
 * The embedded default: PGlite under the data directory, migrated before use. PGlite runs in
 * this process and cannot hang apart from it, and its one connection must never be dropped: calls
 * get the API's deadline, the connection no socket watch and no server-side timeouts.
 */
export const embeddedLayer = (dataDir: string, timeoutSeconds: number): Layer.Layer<Database, DatabaseError> =>
  Layer.effect(Database)(
    Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const db = await openEmbedded(dataDir)
          try {
            await migrate(db.sql)
          } catch (error) {
            await db.close()
            throw error
          }
          return { db, service: Database.of({ sql: db.sql, kind: "embedded", queryTimeoutMs: timeoutSeconds * 1000 }) }
        },
        catch: (cause) => new DatabaseError({ cause })
      }),
      ({ db }) => Effect.promise(() => db.close())
    ).pipe(Effect.map(({ service }) => service))
  )

/**
 * A read-only pool for a standalone engine: no migrations (a replica works; control migrates).
 */
export const readOnlyLayer = (url: string, max = 4): Layer.Layer<Database> =>
  Layer.effect(Database)(
    Effect.acquireRelease(
      Effect.sync(() => Database.of({ sql: openPostgres(url, max), kind: "postgres", queryTimeoutMs: undefined })),
      ({ sql }) => Effect.promise(() => sql.end({ timeout: 5 }))
    )
  )
