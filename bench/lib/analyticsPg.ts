import type { DuckDBConnection } from "@duckdb/node-api"
import { createReadStream } from "node:fs"
import { rm, stat } from "node:fs/promises"
import { pipeline } from "node:stream/promises"
import type { Sql } from "postgres"
import { type BoundSql, type ClickFilter, SqlParams, whereClause } from "../../control/analytics/sql.ts"
import type { GroupBy } from "../../control/analytics/schema.ts"
import { quote } from "../../shared/clicks/parquet.ts"
import { CLICK_COLUMNS } from "../../shared/clicks/clickColumns.ts"

/**
 * The PostgreSQL baseline: the same rows in one `clicks` table with the indexes a visits table of
 * Shlink, Kutt or YOURLS has (by owner and time, by link and time), asked the same questions as
 * plain GROUP BY queries.
 */

const PG_TYPES: Record<string, string> = { TIMESTAMP: "timestamp", VARCHAR: "text", INTEGER: "integer" }

export const PG_TABLE = `CREATE TABLE clicks (${CLICK_COLUMNS.map(([name, type]) => `"${name}" ${PG_TYPES[type]}${name === "timestamp" || name === "workspace_id" || name === "link_id" ? " NOT NULL" : ""}`).join(", ")})`
export const PG_INDEXES = [
  `CREATE INDEX clicks_workspace_time ON clicks (workspace_id, "timestamp")`,
  `CREATE INDEX clicks_link_time ON clicks (link_id, "timestamp")`
]

/**
 * Copies every row of the Parquet files into PostgreSQL: DuckDB writes them as CSV, which is
 * streamed into `COPY clicks FROM STDIN`; indexes are built afterwards and the table analysed.
 */
export const loadIntoPostgres = async (
  sql: Sql,
  duck: DuckDBConnection,
  files: ReadonlyArray<string>,
  csvPath: string
): Promise<{ rows: number; csvBytes: number; copyS: number; indexS: number; tableBytes: number; indexBytes: number }> => {
  const columns = CLICK_COLUMNS.map(([name]) => `"${name}"`).join(", ")
  await duck.run(`COPY (SELECT ${columns} FROM read_parquet([${files.map(quote).join(", ")}])) TO ${quote(csvPath)} (FORMAT csv, HEADER false)`)
  const csvBytes = (await stat(csvPath)).size
  await sql.unsafe(PG_TABLE)
  let start = performance.now()
  try {
    const writable = await sql.unsafe(`COPY clicks (${columns}) FROM STDIN WITH (FORMAT csv)`).writable()
    await pipeline(createReadStream(csvPath, { highWaterMark: 1 << 20 }), writable)
  } finally {
    await rm(csvPath, { force: true })
  }
  const copyS = (performance.now() - start) / 1000
  start = performance.now()
  for (const index of PG_INDEXES) await sql.unsafe(index)
  await sql.unsafe(`VACUUM (ANALYZE) clicks`)
  const indexS = (performance.now() - start) / 1000
  const [row] = await sql.unsafe(
    `SELECT (SELECT count(*) FROM clicks)::bigint AS rows, pg_table_size('clicks')::bigint AS table_bytes, pg_indexes_size('clicks')::bigint AS index_bytes`
  )
  return { rows: Number(row.rows), csvBytes, copyS, indexS, tableBytes: Number(row.table_bytes), indexBytes: Number(row.index_bytes) }
}

const COUNTS = `count(*)::bigint AS clicks, count(*) FILTER (WHERE audience = 'people')::bigint AS people, count(*) FILTER (WHERE audience = 'agent')::bigint AS agents`

/** The breakdown keys of the groupBys the benchmark asks (as control/analytics/sql.ts groups them). */
const KEYS: Partial<Record<GroupBy, readonly [expression: string, name: string]>> = {
  countries: ["country", "country"],
  devices: ["device", "device"],
  referers: ["coalesce(referer_host, '(direct)')", "referer"],
  top_links: ["link_id", "linkId"],
  browsers: ["browser", "browser"],
  os: ["os", "os"],
  utm_sources: ["utm_source", "utmSource"]
}

/**
 * The same question as analyticsSql asks DuckDB, for the PostgreSQL table: same WHERE clause
 * (whereClause's SQL is standard, its `$n` parameters numbered as PostgreSQL numbers them), same grouping, ordering (binary collation, as DuckDB's) and
 * output.
 */
export const postgresSql = (f: ClickFilter, groupBy: GroupBy, limit: number, bucket: "hour" | "day"): BoundSql => {
  const p = new SqlParams()
  const where = whereClause(f, p)
  const bound = (text: string): BoundSql => ({ text, params: p.values })
  if (groupBy === "count") return bound(`SELECT ${COUNTS} FROM clicks WHERE ${where}`)
  if (groupBy === "timeseries") {
    return bound(`SELECT to_char(date_trunc('${bucket}', "timestamp"), 'YYYY-MM-DD"T"HH24:MI:SS".000Z"') AS start, ${COUNTS}
            FROM clicks WHERE ${where} GROUP BY 1 ORDER BY 1`)
  }
  const key = KEYS[groupBy]
  if (key === undefined) throw new Error(`no PostgreSQL baseline for groupBy ${groupBy}`)
  const extra = groupBy.startsWith("utm_") ? ` AND ${key[0]} IS NOT NULL` : ""
  return bound(`SELECT ${key[0]} AS "${key[1]}", ${COUNTS} FROM clicks WHERE ${where}${extra}
          GROUP BY 1 ORDER BY clicks DESC, ${key[0]} COLLATE "C" ASC NULLS LAST LIMIT ${limit}`)
}
