import { readdir, readFile } from "node:fs/promises"
import type { Sql } from "postgres"

const MIGRATIONS_DIR = new URL("./migrations/", import.meta.url)
// Any constant works as long as every Ricochet process uses the same one.
const MIGRATION_LOCK = 7_342_001

/**
 * Applies the versioned SQL files in `migrations/` that this database has not seen, in name order.
 * One transaction under an advisory lock: control processes starting together wait for the first
 * one, then find nothing left to do; a failing file leaves the schema as it was.
 */
const migrationFiles = async () => (await readdir(MIGRATIONS_DIR)).filter((name) => name.endsWith(".sql")).sort()

/**
 * The migrations of this version the database has not had: what a control of this version would
 * apply at its start. The CLI refuses to work on a database that is behind (it never migrates a
 * shared database ahead of the controls).
 */
export const pendingMigrations = async (sql: Sql): Promise<ReadonlyArray<string>> => {
  const versions = (await migrationFiles()).map((file) => file.replace(/\.sql$/, ""))
  const [table] = await sql<{ exists: boolean }[]>`SELECT to_regclass('schema_migrations') IS NOT NULL AS exists`
  if (!table?.exists) return versions
  const done = new Set((await sql<{ version: string }[]>`SELECT version FROM schema_migrations`).map((r) => r.version))
  return versions.filter((version) => !done.has(version))
}

export const migrate = async (sql: Sql): Promise<ReadonlyArray<string>> => {
  const files = await migrationFiles()
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`
    await tx`CREATE TABLE IF NOT EXISTS schema_migrations (
      version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`
    const done = new Set((await tx<{ version: string }[]>`SELECT version FROM schema_migrations`).map((r) => r.version))
    const applied: Array<string> = []
    for (const file of files) {
      const version = file.replace(/\.sql$/, "")
      if (done.has(version)) continue
      await tx.unsafe(await readFile(new URL(file, MIGRATIONS_DIR), "utf8"))
      await tx`INSERT INTO schema_migrations (version) VALUES (${version})`
      applied.push(version)
    }
    return applied
  })
}
