import type { DuckDBConnection } from "@duckdb/node-api"
import { DuckDBInstance } from "@duckdb/node-api"
import { Context, Data, Effect, Layer } from "effect"
import { cachedFileLister } from "../../shared/clicks/files.ts"
import { ClickSettings } from "../../shared/settings/ClickSettings.ts"
import { rollupFinder } from "./rollup.ts"

/**
 * DuckDB over the click Parquet files. Queries run on DuckDB's own threads, so an analytics
 * query never blocks the event loop that serves other requests (or, in one process, redirects).
 */
export class ClickStore extends Context.Service<ClickStore, {
  readonly clicksDir: string
  /** The files holding clicks in [fromMs, toMs], past days' lists cached (see cachedFileLister). */
  readonly files: (fromMs: number, toMs: number) => Promise<Array<string>>
  /** The rollup of each listed day file that has one (see rollup.ts). */
  readonly rollups: (files: ReadonlyArray<string>) => Promise<ReadonlyMap<string, string>>
  /** Runs `sql` with `params` bound to its `$1`, `$2`, … placeholders (see BoundSql). */
  readonly query: (sql: string, params?: ReadonlyArray<string>) => Promise<Array<Record<string, unknown>>>
  readonly run: (sql: string) => Promise<void>
}>()("ricochet/ClickStore") {}

/**
 * DuckDB could not be opened or set up: control cannot answer analytics or compact clicks
 * without it, so the layer fails and control does not start (the cause says why: memory, threads).
 */
export class ClickStoreOpenFailed extends Data.TaggedError("ClickStoreOpenFailed")<{ readonly cause: unknown }> {}

const opening = <A>(call: () => Promise<A>) => Effect.tryPromise({ try: call, catch: (cause) => new ClickStoreOpenFailed({ cause }) })

const toPlain = (value: unknown): unknown => (typeof value === "bigint" ? Number(value) : value)

export const ClickStoreLayer = Layer.effect(ClickStore)(Effect.gen(function*() {
  const { clicksDir } = yield* ClickSettings
  const instance = yield* opening(() => DuckDBInstance.create(":memory:", { threads: "2" }))
  // Two connections: a long query does not hold up a short one.
  const connections: Array<DuckDBConnection> = yield* opening(() => Promise.all([instance.connect(), instance.connect()]))
  // Parquet footers are read once per file, not once per query.
  yield* opening(() => connections[0].run("SET parquet_metadata_cache = true"))
  yield* Effect.addFinalizer(() => Effect.sync(() => {
    for (const connection of connections) connection.closeSync()
    instance.closeSync()
  }))
  let next = 0
  const pick = () => connections[next++ % connections.length]
  return ClickStore.of({
    clicksDir,
    files: cachedFileLister(clicksDir),
    rollups: rollupFinder(),
    query: async (sql, params = []) => {
      const reader = await pick().runAndReadAll(sql, [...params])
      return reader.getRowObjects().map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, toPlain(v)])))
    },
    run: async (sql) => {
      await pick().run(sql)
    }
  })
}))
