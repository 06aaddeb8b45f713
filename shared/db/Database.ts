import { Context, Data, Effect, Layer } from "effect"
import type { Sql, TransactionSql } from "postgres"
import { openPostgres } from "./client.ts"
import { makeOutageLog, type OutageLog } from "./outageLog.ts"

/**
 * The database as a service: the `postgres` client over PostgreSQL (DATABASE_URL) or the embedded
 * PGlite, the same code path for both. Control opens and migrates it (control/db/layers.ts); a
 * standalone engine opens a read-only pool with `readOnlyLayer`.
 */
export class Database extends Context.Service<Database, {
  readonly sql: Sql
  /** "embedded" (PGlite in the data directory) or "postgres" (DATABASE_URL). */
  readonly kind: "embedded" | "postgres"
  /** How long a call may take before it counts as unavailable; undefined: as long as it takes. */
  readonly queryTimeoutMs: number | undefined
  /** This database's outage, told once as it begins and once as it ends (control's calls report to it). */
  readonly outage: OutageLog
}>()("ricochet/Database") {}

/** Anything the database threw that is not a domain outcome: a logged 500, never shown to clients. */
export class DatabaseError extends Data.TaggedError("DatabaseError")<{ readonly cause: unknown }> {}

/** What a repository function runs on: the pool, or a transaction it is part of. */
export type Queryable = Sql | TransactionSql

/** PostgreSQL's unique_violation, optionally of one constraint. */
export const isUniqueViolation = (error: unknown, constraint?: string): boolean =>
  typeof error === "object" && error !== null && (error as { code?: string }).code === "23505" &&
  (constraint === undefined || (error as { constraint_name?: string }).constraint_name === constraint)

/**
 * A read-only pool for a standalone engine: no migrations (a replica works; control migrates).
 * Bounded like control's pool (connect and statement timeouts, hung sockets dropped), so an
 * engine's lookups fail fast and it serves its last known answers while PostgreSQL hangs.
 */
export const readOnlyLayer = (url: string, timeoutSeconds: number, max = 4): Layer.Layer<Database> =>
  Layer.effect(Database)(
    Effect.acquireRelease(
      Effect.sync(() =>
        Database.of({ sql: openPostgres(url, max, timeoutSeconds), kind: "postgres", queryTimeoutMs: timeoutSeconds * 1000, outage: makeOutageLog() })
      ),
      // Cannot reject (.catch): connections that fail to end are closed with the process.
      ({ sql }) => Effect.promise(() => sql.end({ timeout: 5 }).catch((error) => console.error("database: closing the pool failed", error)))
    )
  )
