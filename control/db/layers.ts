import { Effect, Layer } from "effect"
import { openPostgres } from "../../shared/db/client.ts"
import { Database, DatabaseError } from "../../shared/db/Database.ts"
import { makeOutageLog } from "../../shared/db/outageLog.ts"
import { isDatabaseUnavailable } from "../../shared/db/unavailable.ts"
import { StartupFailure } from "../../shared/startup/startupFailure.ts"
import { DataDirectoryInUse, openEmbedded } from "./embedded.ts"
import { migrate } from "./migrate.ts"

/** What the server said, on one line (postgres.js's messages carry no stack of use to an operator). */
const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error)).replace(/\s+/g, " ")

/**
 * A failure to open the database that the operator's settings explain, as the one line a start
 * ends with: the server unreachable or refusing, the database or role not there, the password
 * wrong (SQLSTATE classes 08, 28, 3D). Anything else is a fault, kept with its cause.
 */
const startFailure = (setting: string, cause: unknown): StartupFailure | DatabaseError => {
  const code = typeof cause === "object" && cause !== null ? (cause as { code?: unknown }).code : undefined
  const refused = typeof code === "string" && /^(28|3D)/.test(code)
  return isDatabaseUnavailable(cause) || refused
    ? new StartupFailure({ message: `${setting}: cannot open the database: ${reasonOf(cause)}` })
    : new DatabaseError({ cause })
}

const reportMigrations = (applied: ReadonlyArray<string>) =>
  console.log(applied.length === 0 ? "Database up to date." : `Database migrated (${applied.join(", ")}).`)

/**
 * PostgreSQL at DATABASE_URL, migrated before anything uses it. Migrations run on a connection of
 * their own without the timeouts (an index build may take minutes); the pool is bounded by
 * `timeoutSeconds` (RICOCHET_DB_TIMEOUT_SECONDS).
 */
export const postgresLayer = (url: string, timeoutSeconds: number, max = 10): Layer.Layer<Database, DatabaseError | StartupFailure> =>
  Layer.effect(Database)(
    Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          console.log("Connecting to PostgreSQL and migrating…")
          const migrator = openPostgres(url, 1)
          try {
            reportMigrations(await migrate(migrator))
          } finally {
            await migrator.end({ timeout: 1 })
          }
          return Database.of({ sql: openPostgres(url, max, timeoutSeconds), kind: "postgres", queryTimeoutMs: timeoutSeconds * 1000, outage: makeOutageLog() })
        },
        catch: (cause) => startFailure("DATABASE_URL", cause)
      }),
      // Cannot reject (.catch): connections that fail to end are closed with the process.
      ({ sql }) => Effect.promise(() => sql.end({ timeout: 5 }).catch((error) => console.error("database: closing the pool failed", error)))
    )
  )

/**
 * The embedded default: PGlite under the data directory, migrated before use. PGlite runs in
 * this process and cannot hang apart from it, and its one connection must never be dropped: calls
 * get the API's deadline, the connection no socket watch and no server-side timeouts.
 */
export const embeddedLayer = (dataDir: string, timeoutSeconds: number): Layer.Layer<Database, DatabaseError | StartupFailure> =>
  Layer.effect(Database)(
    Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          console.log(`Opening the embedded database in ${dataDir}…`)
          const db = await openEmbedded(dataDir, "a Ricochet server")
          try {
            console.log("Migrating…")
            reportMigrations(await migrate(db.sql))
          } catch (error) {
            await db.close()
            throw error
          }
          return { db, service: Database.of({ sql: db.sql, kind: "embedded", queryTimeoutMs: timeoutSeconds * 1000, outage: makeOutageLog() }) }
        },
        catch: (cause) => (cause instanceof DataDirectoryInUse ? new StartupFailure({ message: cause.message }) : new DatabaseError({ cause }))
      }),
      // Cannot reject (.catch): logged; the next start recovers the data directory.
      ({ db }) => Effect.promise(() => db.close().catch((error) => console.error("database: closing the embedded database failed", error)))
    ).pipe(Effect.map(({ service }) => service))
  )
