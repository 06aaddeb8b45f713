import type { DuckDBConnection } from "@duckdb/node-api"
import { DuckDBInstance } from "@duckdb/node-api"
import { Context, Effect, Layer } from "effect"
import { cachedFileLister } from "../../shared/clicks/files.ts"
import { Configuration } from "../../shared/config.ts"

/**
 * DuckDB over the click Parquet files. Queries run on DuckDB's own threads, so an analytics
 * query never blocks the event loop that serves other requests (or, in one process, redirects).
 */
export class ClickStore extends Context.Service<ClickStore, {
  readonly clicksDir: string
  /** The files holding clicks in [fromMs, toMs], past days' lists cached (see cachedFileLister). */
  readonly files: (fromMs: number, toMs: number) => Promise<Array<string>>
  /** Runs `sql` with `params` bound to its `$1`, `$2`, … placeholders (see BoundSql). */
  readonly query: (sql: string, params?: ReadonlyArray<string>) => Promise<Array<Record<string, unknown>>>
  readonly run: (sql: string) => Promise<void>
}>()("ricochet/ClickStore") {}

const toPlain = (value: unknown): unknown => (typeof value === "bigint" ? Number(value) : value)

export const ClickStoreLayer = Layer.effect(ClickStore)(Effect.gen(function*() {
  const config = yield* Configuration
  const instance = yield* Effect.promise(() => DuckDBInstance.create(":memory:", { threads: "2" }))
  // Two connections: a long query does not hold up a short one.
  const connections: Array<DuckDBConnection> = yield* Effect.promise(() => Promise.all([instance.connect(), instance.connect()]))
  // Parquet footers are read once per file, not once per query.
  yield* Effect.promise(() => connections[0].run("SET parquet_metadata_cache = true"))
  yield* Effect.addFinalizer(() => Effect.sync(() => {
    for (const connection of connections) connection.closeSync()
    instance.closeSync()
  }))
  let next = 0
  const pick = () => connections[next++ % connections.length]
  return ClickStore.of({
    clicksDir: config.clicksDir,
    files: cachedFileLister(config.clicksDir),
    query: async (sql, params = []) => {
      const reader = await pick().runAndReadAll(sql, [...params])
      return reader.getRowObjects().map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, toPlain(v)])))
    },
    run: async (sql) => {
      await pick().run(sql)
    }
  })
}))
