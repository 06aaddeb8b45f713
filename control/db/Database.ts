import { Context, Data, Effect, Layer } from "effect"
import type { Sql, TransactionSql } from "postgres"
import { ApiError } from "../http/ApiError.ts"
import { afterDatabaseCall } from "../outbox/signal.ts"
import { openEmbedded } from "./embedded.ts"
import { openPostgres } from "./client.ts"
import { migrate } from "./migrate.ts"

/** Anything the database threw that is not a domain error: a logged 500, never shown to clients. */
export class DatabaseError extends Data.TaggedError("DatabaseError")<{ readonly cause: unknown }> {}

export class Database extends Context.Service<Database, {
  readonly sql: Sql
  /** "embedded" (PGlite in the data directory) or "postgres" (DATABASE_URL). */
  readonly kind: "embedded" | "postgres"
}>()("ricochet/Database") {}

/** What a repository function runs on: the pool, or a transaction it is part of. */
export type Queryable = Sql | TransactionSql

/** PostgreSQL's unique_violation, optionally of one constraint. */
export const isUniqueViolation = (error: unknown, constraint?: string): boolean =>
  typeof error === "object" && error !== null && (error as { code?: string }).code === "23505" &&
  (constraint === undefined || (error as { constraint_name?: string }).constraint_name === constraint)

const fromPromise = <A>(run: () => Promise<A>): Effect.Effect<A, ApiError | DatabaseError> =>
  Effect.tryPromise({
    try: () => run().finally(afterDatabaseCall),
    catch: (cause) => (cause instanceof ApiError ? cause : new DatabaseError({ cause }))
  })

/**
 * Runs plain `postgres` code. Repositories are async functions over the client so SQL reads as
 * SQL; a repository throws an ApiError for a domain outcome (a unique slug taken, say).
 */
export const query = <A>(run: (sql: Sql) => Promise<A>): Effect.Effect<A, ApiError | DatabaseError, Database> =>
  Effect.gen(function*() {
    const { sql } = yield* Database
    return yield* fromPromise(() => run(sql))
  })

/** PostgreSQL at DATABASE_URL, migrated before anything uses it. */
export const postgresLayer = (url: string, max = 10): Layer.Layer<Database, DatabaseError> =>
  Layer.effect(Database)(
    Effect.acquireRelease(
      fromPromise(async () => {
        const sql = openPostgres(url, max)
        try {
          await migrate(sql)
        } catch (error) {
          await sql.end({ timeout: 1 })
          throw error
        }
        return Database.of({ sql, kind: "postgres" })
      }).pipe(Effect.mapError((e) => (e instanceof DatabaseError ? e : new DatabaseError({ cause: e })))),
      ({ sql }) => Effect.promise(() => sql.end({ timeout: 5 }))
    )
  )

/** The embedded default: PGlite under the data directory, migrated before use. */
export const embeddedLayer = (dataDir: string): Layer.Layer<Database, DatabaseError> =>
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
          return { db, service: Database.of({ sql: db.sql, kind: "embedded" }) }
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
      Effect.sync(() => Database.of({ sql: openPostgres(url, max), kind: "postgres" })),
      ({ sql }) => Effect.promise(() => sql.end({ timeout: 5 }))
    )
  )
