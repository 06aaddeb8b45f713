import { access } from "node:fs/promises"
import * as path from "node:path"
import { copyToParquet, quote, type SqlRunner } from "../../shared/clicks/parquet.ts"
import type { GroupBy } from "./schema.ts"
import type { ClickFilter } from "./sql.ts"

/**
 * Rollups of a day file: click counts per (hour, workspace, domain, audience) and one dimension
 * set, and the same per day (sets named `{set}/day`), in `date=…/rollup-v2-{ts}.parquet` beside
 * `day-{ts}.parquet`, computed from that day file itself. A rollup therefore holds exactly the
 * clicks of its day file (same retention, same audiences; bots are never written to any click
 * file): it is written after the day file and before the day manifest names the day file, so
 * whenever a reader lists the day file its rollup is complete, and a day file without one (written
 * before rollups, or by a pass that crashed in between and was then replaced) is read raw, and
 * merged again by compaction (a bounded number of days a pass). Late clicks land in hour files
 * the day file has not replaced and are read raw until the next pass merges them into a new day
 * file and rollup.
 *
 * Workspace-level sets leave link_id out, which is what makes them small (a few thousand rows a
 * day whatever the click count); the `link` set keeps it for top_links and one link's questions;
 * the daily-only `filters` set holds the common filter columns together. The daily rows answer a
 * day the window holds whole for every question that needs no hour (a breakdown, a count, a daily
 * timeseries; per day the `link` set has one row per link and audience instead of up to 24); the
 * hourly rows answer the whole hours of a day the window cuts through, and hourly timeseries.
 *
 * `v2` is the layout with daily rows: rollups written before (`rollup-{ts}`) are not read, and
 * their days are merged again into a day file with a current rollup.
 */
export const ROLLUP_SETS: Readonly<Record<string, ReadonlyArray<string>>> = {
  total: [],
  link: ["link_id"],
  country: ["country"],
  region: ["country", "region"],
  city: ["country", "region", "city"],
  device: ["device"],
  browser: ["browser"],
  os: ["os"],
  referer: ["referer_host"],
  utm_source: ["utm_source"],
  utm_medium: ["utm_medium"],
  utm_campaign: ["utm_campaign"],
  utm_term: ["utm_term"],
  utm_content: ["utm_content"],
  // Filters across dimensions (a country and a device and a campaign). Daily rows only: per hour
  // this set is nearly a row per click, per day a fraction of them.
  filters: ["country", "device", "browser", "os", "referer_host", "utm_source", "utm_medium", "utm_campaign"]
}

/** Sets with daily rows only. */
const DAILY_ONLY: ReadonlySet<string> = new Set(["filters"])

/** The click columns a rollup row carries; a set's other dimension columns are NULL. */
export const ROLLUP_DIMENSIONS = [
  "link_id", "country", "region", "city", "device", "browser", "os", "referer_host",
  "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"
] as const

const DAY_FILE = /^day-(.+)\.parquet$/

/** `date=…/rollup-v2-{ts}.parquet` for `date=…/day-{ts}.parquet`; null for any other file. */
export const rollupOf = (dayFile: string): string | null => {
  const match = DAY_FILE.exec(path.basename(dayFile))
  return match === null ? null : path.join(path.dirname(dayFile), `rollup-v2-${match[1]}.parquet`)
}

/** A rollup of any layout (earlier ones are removed with their day file). */
export const isRollupFile = (name: string) => name.startsWith("rollup-") && name.endsWith(".parquet")

/** The day file a rollup belongs to (its name). */
export const dayFileOfRollup = (name: string) => name.replace(/^rollup-(v2-)?/, "day-")

/** The name of a set's daily rows. */
const daily = (set: string) => `${set}/day`

/**
 * The SELECT computing the rollup of one day file (hourly rows, then daily rows summed from them),
 * sorted so a query skips other sets' and workspaces' row groups.
 */
export const rollupSelect = (dayFile: string): string => {
  const source = `read_parquet(${quote(dayFile)}, hive_partitioning = false)`
  const hourly = Object.entries(ROLLUP_SETS).map(([name, columns]) => {
    const dims = ROLLUP_DIMENSIONS.map((d) => (columns.includes(d) ? d : `NULL::VARCHAR AS ${d}`)).join(", ")
    const keys = ["date_trunc('hour', timestamp)", "workspace_id", "domain", "audience", ...columns].join(", ")
    return `SELECT '${name}' AS rollup_set, date_trunc('hour', timestamp) AS timestamp, workspace_id, domain, audience, ${dims},
              count(*)::BIGINT AS clicks FROM ${source} GROUP BY ${keys}`
  })
  // Every set's columns are in every row (NULL where not the set's), so one GROUP BY sums them all.
  const days = `SELECT rollup_set || '/day' AS rollup_set, date_trunc('day', timestamp) AS timestamp, workspace_id, domain, audience,
              ${ROLLUP_DIMENSIONS.join(", ")}, sum(clicks)::BIGINT AS clicks
            FROM hourly GROUP BY rollup_set, date_trunc('day', timestamp), workspace_id, domain, audience, ${ROLLUP_DIMENSIONS.join(", ")}`
  const hours = `SELECT * FROM hourly WHERE rollup_set NOT IN (${[...DAILY_ONLY].map((set) => `'${set}'`).join(", ")})`
  return `WITH hourly AS (${hourly.join(" UNION ALL ")})
          SELECT * FROM (${hours} UNION ALL ${days}) ORDER BY rollup_set, workspace_id, link_id, timestamp`
}

/** Writes the rollup of `dayFile` (temporary name, then renamed: never seen partial). */
export const writeRollup = async (duck: SqlRunner, dayFile: string): Promise<void> => {
  await copyToParquet(duck, rollupSelect(dayFile), rollupOf(dayFile)!)
}

const FILTER_DIMENSIONS: ReadonlyArray<[keyof ClickFilter, string]> = [
  ["countries", "country"], ["devices", "device"], ["browsers", "browser"], ["oses", "os"], ["referers", "referer_host"],
  ["utmSources", "utm_source"], ["utmMediums", "utm_medium"], ["utmCampaigns", "utm_campaign"]
]

const GROUP_DIMENSIONS: Partial<Record<GroupBy, ReadonlyArray<string>>> = {
  countries: ["country"], regions: ["country", "region"], cities: ["country", "region", "city"], devices: ["device"],
  browsers: ["browser"], os: ["os"], referers: ["referer_host"], top_links: ["link_id"], utm_sources: ["utm_source"],
  utm_mediums: ["utm_medium"], utm_campaigns: ["utm_campaign"], utm_terms: ["utm_term"], utm_contents: ["utm_content"]
}

/**
 * The rows of the smallest rollup set holding every column the question filters or groups by
 * (daily unless it counts by the hour), or null when none does (filters across dimensions that
 * are not rolled up together): then only raw files answer.
 */
export const rollupSetFor = (f: ClickFilter, groupBy: GroupBy, bucket: "hour" | "day"): string | null => {
  if (groupBy === "timeseries" && bucket === "hour") return hourlyRollupSetFor(f, groupBy)
  const set = smallestSetFor(f, groupBy, false)
  return set === null ? null : daily(set)
}

/** The set whose hourly rows answer the question for the whole hours of a day the window cuts through. */
export const hourlyRollupSetFor = (f: ClickFilter, groupBy: GroupBy): string | null => smallestSetFor(f, groupBy, true)

const smallestSetFor = (f: ClickFilter, groupBy: GroupBy, hourly: boolean): string | null => {
  const needed = new Set<string>(GROUP_DIMENSIONS[groupBy] ?? [])
  if (f.linkIds !== null) needed.add("link_id")
  for (const [field, column] of FILTER_DIMENSIONS) if ((f[field] as ReadonlyArray<string>).length > 0) needed.add(column)
  let best: string | null = null
  for (const [name, columns] of Object.entries(ROLLUP_SETS)) {
    if ((hourly && DAILY_ONLY.has(name)) || ![...needed].every((c) => columns.includes(c))) continue
    if (best === null || columns.length < ROLLUP_SETS[best].length) best = name
  }
  return best
}

/**
 * Which listed day files have a rollup. A listed day file's rollup either exists for good (it
 * was written before the manifest named the day file) or never will, so answers are remembered;
 * a day file leaves the listing before it is deleted, so stale entries are only memory.
 */
export const rollupFinder = (maxEntries = 20_000) => {
  const known = new Map<string, string | null>()
  return async (files: ReadonlyArray<string>): Promise<ReadonlyMap<string, string>> => {
    const found = new Map<string, string>()
    await Promise.all(files.map(async (file) => {
      const rollup = rollupOf(file)
      if (rollup === null) return
      let answer = known.get(file)
      if (answer === undefined) {
        answer = await access(rollup).then(() => rollup, () => null)
        if (known.size >= maxEntries) known.clear()
        known.set(file, answer)
      }
      if (answer !== null) found.set(file, answer)
    }))
    return found
  }
}
