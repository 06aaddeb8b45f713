import { fileSpan } from "../../shared/clicks/files.ts"
import { quote } from "../../shared/clicks/parquet.ts"
import { hourlyRollupSetFor, ROLLUP_DIMENSIONS, rollupSetFor } from "./rollup.ts"
import type { GroupBy } from "./schema.ts"

/** A resolved analytics question: everything needed to build the DuckDB query. */
export interface ClickFilter {
  readonly workspaceId: string
  readonly fromMs: number
  readonly toMs: number
  /** null: any link of the workspace. */
  readonly linkIds: ReadonlyArray<string> | null
  readonly domain: string | null
  readonly countries: ReadonlyArray<string>
  readonly devices: ReadonlyArray<string>
  readonly browsers: ReadonlyArray<string>
  readonly oses: ReadonlyArray<string>
  readonly referers: ReadonlyArray<string>
  readonly utmSources: ReadonlyArray<string>
  readonly utmMediums: ReadonlyArray<string>
  readonly utmCampaigns: ReadonlyArray<string>
  readonly audience: "people" | "agent" | null
}

/**
 * SQL text and the values of its `$1`, `$2`, … placeholders. Every value a client chose travels
 * as a parameter, never inside the text (DuckDB and PostgreSQL both number them this way), so no
 * character of it (a quote, a NUL) can change what the statement says. File paths are ours and
 * stay quoted in the text.
 */
export interface BoundSql {
  readonly text: string
  readonly params: ReadonlyArray<string>
}

/** Collects the values of one statement and hands out their placeholders. */
export class SqlParams {
  readonly values: Array<string> = []
  add(value: string): string {
    this.values.push(value)
    return `$${this.values.length}`
  }
  list(values: ReadonlyArray<string>): string {
    return values.map((value) => this.add(value)).join(", ")
  }
}

const ts = (p: SqlParams, ms: number) => `${p.add(new Date(ms).toISOString().replace("T", " ").replace("Z", ""))}::TIMESTAMP`
const inList = (p: SqlParams, column: string, values: ReadonlyArray<string>) => `${column} IN (${p.list(values)})`

/**
 * The WHERE clause: every filter is ANDed; the values of one filter are ORed. Without `time`, the
 * window's bounds are left out (for files that lie wholly inside it).
 */
export const whereClause = (f: ClickFilter, p: SqlParams, options: { readonly time?: boolean } = {}): string => {
  const parts = [`workspace_id = ${p.add(f.workspaceId)}`]
  if (options.time !== false) parts.push(`timestamp >= ${ts(p, f.fromMs)}`, `timestamp <= ${ts(p, f.toMs)}`)
  if (f.linkIds !== null) parts.push(f.linkIds.length === 0 ? "false" : inList(p, "link_id", f.linkIds))
  if (f.domain !== null) parts.push(`domain = ${p.add(f.domain)}`)
  if (f.countries.length > 0) parts.push(inList(p, "country", f.countries.map((c) => c.toUpperCase())))
  if (f.devices.length > 0) parts.push(inList(p, "device", f.devices))
  if (f.browsers.length > 0) parts.push(inList(p, "lower(browser)", f.browsers.map((b) => b.toLowerCase())))
  if (f.oses.length > 0) parts.push(inList(p, "lower(os)", f.oses.map((o) => o.toLowerCase())))
  if (f.referers.length > 0) {
    const direct = f.referers.includes("(direct)")
    const hosts = f.referers.filter((r) => r !== "(direct)").map((r) => r.toLowerCase())
    const options = [...(hosts.length > 0 ? [inList(p, "referer_host", hosts)] : []), ...(direct ? ["referer_host IS NULL"] : [])]
    parts.push(`(${options.join(" OR ")})`)
  }
  if (f.utmSources.length > 0) parts.push(inList(p, "utm_source", f.utmSources))
  if (f.utmMediums.length > 0) parts.push(inList(p, "utm_medium", f.utmMediums))
  if (f.utmCampaigns.length > 0) parts.push(inList(p, "utm_campaign", f.utmCampaigns))
  if (f.audience !== null) parts.push(`audience = ${p.add(f.audience)}`)
  return parts.join(" AND ")
}

const COUNTS = "count(*)::BIGINT AS clicks, count(*) FILTER (WHERE audience = 'people')::BIGINT AS people, count(*) FILTER (WHERE audience = 'agent')::BIGINT AS agents"
/** The same counts over rows each standing for `n` clicks (a raw click is 1, a rollup row its count). */
const SUMS = "coalesce(sum(n), 0)::BIGINT AS clicks, coalesce(sum(n) FILTER (WHERE audience = 'people'), 0)::BIGINT AS people, coalesce(sum(n) FILTER (WHERE audience = 'agent'), 0)::BIGINT AS agents"

/** The grouping of each breakdown: the SELECT keys (with their output names) and what rows count. */
const BREAKDOWNS: Partial<Record<GroupBy, { keys: ReadonlyArray<[string, string]>; where?: string }>> = {
  countries: { keys: [["country", "country"]] },
  regions: { keys: [["country", "country"], ["region", "region"]] },
  cities: { keys: [["country", "country"], ["region", "region"], ["city", "city"]] },
  devices: { keys: [["device", "device"]] },
  browsers: { keys: [["browser", "browser"]] },
  os: { keys: [["os", "os"]] },
  referers: { keys: [["coalesce(referer_host, '(direct)')", "referer"]] },
  top_links: { keys: [["link_id", "linkId"]] },
  utm_sources: { keys: [["utm_source", "utmSource"]], where: "utm_source IS NOT NULL" },
  utm_mediums: { keys: [["utm_medium", "utmMedium"]], where: "utm_medium IS NOT NULL" },
  utm_campaigns: { keys: [["utm_campaign", "utmCampaign"]], where: "utm_campaign IS NOT NULL" },
  utm_terms: { keys: [["utm_term", "utmTerm"]], where: "utm_term IS NOT NULL" },
  utm_contents: { keys: [["utm_content", "utmContent"]], where: "utm_content IS NOT NULL" }
}

export const breakdownKeys = (groupBy: GroupBy): ReadonlyArray<string> => BREAKDOWNS[groupBy]?.keys.map(([, name]) => name) ?? []

/**
 * The DuckDB query for one question over the given files. Breakdowns list most clicks first,
 * ties by key; timeseries groups by hour or day (UTC) and leaves filling empty buckets to the caller.
 */
export const analyticsSql = (
  files: ReadonlyArray<string>,
  f: ClickFilter,
  groupBy: GroupBy,
  limit: number,
  bucket: "hour" | "day",
  rollups: ReadonlyMap<string, string> = new Map()
): BoundSql => {
  const p = new SqlParams()
  const sets = { whole: rollupSetFor(f, groupBy, bucket), hourly: hourlyRollupSetFor(f, groupBy) }
  const { source, summed } = matchingClicks(files, f, p, rollups, sets)
  const counts = summed ? SUMS : COUNTS
  const bound = (text: string): BoundSql => ({ text, params: p.values })
  if (groupBy === "count") return bound(`SELECT ${counts} FROM ${source}`)
  if (groupBy === "timeseries") {
    return bound(`SELECT strftime(date_trunc('${bucket}', timestamp), '%Y-%m-%dT%H:%M:%S.000Z') AS start, ${counts}
            FROM ${source} GROUP BY 1 ORDER BY 1`)
  }
  const spec = BREAKDOWNS[groupBy]!
  const select = spec.keys.map(([expression, name]) => `${expression} AS "${name}"`).join(", ")
  const order = spec.keys.map(([, name]) => `"${name}" ASC NULLS LAST`).join(", ")
  // `limit` is an integer by its schema (1 to 1000), not text.
  return bound(`SELECT ${select}, ${counts} FROM ${source}${spec.where ? ` WHERE ${spec.where}` : ""}
          GROUP BY ALL ORDER BY clicks DESC, ${order} LIMIT ${Math.trunc(limit)}`)
}

const HOUR_MS = 3_600_000

/**
 * The clicks a question counts, as a subquery. A file whose partition (day or hour) lies wholly
 * inside the window holds nothing outside it, so its rows are not tested against the window's
 * bounds: on a 30-day question that test was half the time. Files at the window's edges, and any
 * outside the layout, are.
 *
 * Day files with a rollup that holds the question's columns are read through it (then every row
 * carries `n`, the clicks it stands for, and `summed` says the counts are sums): a day wholly
 * inside the window as the rollup's rows of `sets.whole` (daily unless the question counts by
 * the hour); a day the window cuts through as the hourly rows (`sets.hourly`) of the hours wholly
 * inside the window, and raw rows for the rest of the window, so no hour is ever split.
 */
const matchingClicks = (
  files: ReadonlyArray<string>,
  f: ClickFilter,
  p: SqlParams,
  rollups: ReadonlyMap<string, string>,
  sets: { readonly whole: string | null; readonly hourly: string | null }
): { source: string; summed: boolean } => {
  // The whole hours inside the window: [firstHour, endHour).
  const firstHour = Math.ceil(f.fromMs / HOUR_MS) * HOUR_MS
  const endHour = Math.floor((f.toMs + 1) / HOUR_MS) * HOUR_MS
  const whole: Array<string> = []
  const edges: Array<string> = []
  const rolled: Array<string> = []
  const cut: Array<string> = []
  const cutRollups: Array<string> = []
  for (const file of files) {
    const span = fileSpan(file)
    const inside = span !== null && span.start >= f.fromMs && span.end - 1 <= f.toMs
    const rollup = rollups.get(file)
    if (inside && sets.whole !== null && rollup !== undefined) rolled.push(rollup)
    else if (inside) whole.push(file)
    else if (span !== null && sets.hourly !== null && rollup !== undefined && Math.max(span.start, firstHour) < Math.min(span.end, endHour)) {
      cut.push(file)
      cutRollups.push(rollup)
    } else edges.push(file)
  }
  const read = (list: ReadonlyArray<string>) => `read_parquet([${list.map(quote).join(", ")}], hive_partitioning = false)`
  const summed = rolled.length > 0 || cut.length > 0
  const columns = summed ? `timestamp, workspace_id, domain, audience, ${ROLLUP_DIMENSIONS.join(", ")}` : "*"
  const n = summed ? ", 1::BIGINT AS n" : ""
  const parts: Array<string> = []
  if (whole.length > 0) parts.push(`SELECT ${columns}${n} FROM ${read(whole)} WHERE ${whereClause(f, p, { time: false })}`)
  if (edges.length > 0) parts.push(`SELECT ${columns}${n} FROM ${read(edges)} WHERE ${whereClause(f, p)}`)
  if (rolled.length > 0) {
    parts.push(`SELECT ${columns}, clicks AS n FROM ${read(rolled)} WHERE rollup_set = ${p.add(sets.whole!)} AND ${whereClause(f, p, { time: false })}`)
  }
  if (cut.length > 0) {
    const hours = `timestamp >= ${ts(p, firstHour)} AND timestamp < ${ts(p, endHour)}`
    parts.push(`SELECT ${columns}, clicks AS n FROM ${read(cutRollups)} WHERE rollup_set = ${p.add(sets.hourly!)} AND ${hours} AND ${whereClause(f, p, { time: false })}`)
    parts.push(`SELECT ${columns}${n} FROM ${read(cut)} WHERE ${whereClause(f, p)} AND NOT (${hours})`)
  }
  // No file at all: an empty read still gives the columns.
  if (parts.length === 0) parts.push(`SELECT ${columns}${n} FROM ${read([])} WHERE ${whereClause(f, p)}`)
  return { source: `(${parts.join(" UNION ALL ")}) AS clicks`, summed }
}

/** Every bucket start from the one holding `fromMs` to the one holding `toMs`. */
export const bucketStarts = (fromMs: number, toMs: number, bucket: "hour" | "day"): Array<string> => {
  const step = bucket === "hour" ? HOUR_MS : 24 * HOUR_MS
  const first = Math.floor(fromMs / step) * step
  const starts: Array<string> = []
  for (let t = first; t <= toMs; t += step) starts.push(new Date(t).toISOString())
  return starts
}

/** Host, slug and url each link last had in its clicks (for top_links rows of deleted links). */
export const recordedLinksSql = (files: ReadonlyArray<string>, workspaceId: string, linkIds: ReadonlyArray<string>): BoundSql => {
  const p = new SqlParams()
  const text = `SELECT link_id, arg_max(domain, timestamp) AS host, arg_max(slug, timestamp) AS slug, arg_max(url, timestamp) AS url
   FROM read_parquet([${files.map(quote).join(", ")}], hive_partitioning = false)
   WHERE workspace_id = ${p.add(workspaceId)} AND ${inList(p, "link_id", linkIds)}
   GROUP BY link_id`
  return { text, params: p.values }
}
