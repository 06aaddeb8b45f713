import type { DuckDBConnection } from "@duckdb/node-api"
import { createHash } from "node:crypto"
import { mkdir, writeFile } from "node:fs/promises"
import * as path from "node:path"
import { MANIFEST } from "../../shared/clicks/files.ts"
import { PARQUET_FORMAT, partitionOf, quote, SORTED_ROW_GROUP_SIZE } from "../../shared/clicks/parquet.ts"
import { CLICK_COLUMNS } from "../../shared/clicks/clickColumns.ts"

/**
 * A deterministic synthetic click history written straight to Parquet in the layout control's
 * compaction leaves behind: `date=YYYY-MM-DD/hour=HH/merged-*.parquet` (PARQUET_FORMAT, sorted by
 * workspace, link, timestamp, row groups of 100,000) plus a `_manifest.json` naming it, so
 * listClickFiles reads exactly these files.
 *
 * Every value is a function of the click's global index `i` through DuckDB's hash(), so the same
 * size gives the same rows on every run.
 */

export const HOUR = 3_600_000
export const DAY = 24 * HOUR

export interface DatasetSpec {
  readonly clicks: number
  readonly days: number
  readonly links: number
  /** Exclusive end (start of an hour, epoch ms); the data covers [end - days, end). */
  readonly endMs: number
}

/** Workspaces: one big one with most links, then smaller ones (share of link indexes). */
export const WORKSPACES: ReadonlyArray<{ readonly name: string; readonly share: number; readonly domain: string }> = [
  { name: "acme", share: 0.7, domain: "go.acme.example" },
  { name: "globex", share: 0.15, domain: "glbx.link" },
  { name: "initech", share: 0.08, domain: "init.ch" },
  { name: "umbrella", share: 0.05, domain: "umb.re" },
  { name: "hooli", share: 0.02, domain: "hoo.li" }
]

const md5Id = (prefix: string, text: string) => `${prefix}_${createHash("md5").update(text).digest("hex").slice(0, 20)}`

/** Ids as the SQL generator derives them (md5 of a tag), computed here for choosing filters. */
export const workspaceId = (index: number) => md5Id("ws", `workspace${index}`)
export const linkId = (link: number) => md5Id("lnk", `link${link}`)
/** The link index of popularity rank `rank` (0 = most clicked): a fixed permutation. */
export const linkOfRank = (rank: number, links: number) => (rank * 7919 + 13) % links
export const workspaceOfLink = (link: number, links: number): number => {
  let bound = 0
  for (let w = 0; w < WORKSPACES.length; w++) {
    bound += WORKSPACES[w].share * links
    if (link < bound) return w
  }
  return WORKSPACES.length - 1
}

const weighted = (items: ReadonlyArray<readonly [string | null, number]>, slots = 200): string => {
  const total = items.reduce((sum, [, w]) => sum + w, 0)
  const out: Array<string> = []
  for (const [value, weight] of items) {
    const n = Math.max(1, Math.round((weight / total) * slots))
    for (let k = 0; k < n; k++) out.push(value === null ? "NULL" : quote(value))
  }
  return `[${out.join(", ")}]`
}

const COUNTRIES: ReadonlyArray<readonly [string, number]> = [
  ["US", 30], ["DE", 9], ["GB", 8], ["FR", 6], ["IN", 6], ["BR", 5], ["CA", 4], ["JP", 4], ["NL", 3], ["ES", 3],
  ["IT", 3], ["AU", 3], ["PL", 2], ["SE", 2], ["MX", 2], ["KR", 2], ["CH", 1], ["AT", 1], ["BE", 1], ["NG", 1], ["ZA", 1], ["AR", 1]
]
/** device|browser|os, correlated. */
const DEVICES: ReadonlyArray<readonly [string, number]> = [
  ["mobile|Mobile Safari|iOS", 26], ["mobile|Chrome|Android", 24], ["mobile|Samsung Browser|Android", 3],
  ["desktop|Chrome|Windows", 20], ["desktop|Safari|macOS", 7], ["desktop|Chrome|macOS", 5], ["desktop|Firefox|Windows", 4],
  ["desktop|Edge|Windows", 5], ["desktop|Firefox|Linux", 1], ["tablet|Mobile Safari|iOS", 3], ["tablet|Chrome|Android", 1],
  ["tv|Unknown|Unknown", 0.5], ["console|Unknown|Unknown", 0.5]
]
const AGENTS: ReadonlyArray<readonly [string, number]> = [["ChatGPT-User", 6], ["Claude-User", 2], ["Perplexity-User", 2]]
const REFERERS: ReadonlyArray<readonly [string | null, number]> = [
  [null, 40], ["t.co", 12], ["www.google.com", 10], ["www.facebook.com", 8], ["l.instagram.com", 6], ["www.linkedin.com", 6],
  ["news.ycombinator.com", 2], ["www.reddit.com", 4], ["mail.google.com", 3], ["chatgpt.com", 3], ["duckduckgo.com", 2],
  ["www.bing.com", 2], ["out.reddit.com", 1], ["lm.facebook.com", 1]
]
const UTM_SOURCES = ["newsletter", "twitter", "facebook", "linkedin", "google", "partner"]
const UTM_MEDIUMS = ["email", "social", "cpc", "referral"]
const UTM_CAMPAIGNS = ["spring-sale", "launch", "black-friday", "webinar", "onboarding", "retargeting", "brand", "summer"]
const PLACES: Record<string, ReadonlyArray<readonly [string, string]>> = {
  US: [["CA", "San Francisco"], ["CA", "Los Angeles"], ["NY", "New York"], ["TX", "Austin"], ["WA", "Seattle"], ["IL", "Chicago"]],
  DE: [["BE", "Berlin"], ["BY", "Munich"], ["HH", "Hamburg"]],
  GB: [["ENG", "London"], ["ENG", "Manchester"], ["SCT", "Edinburgh"]]
}

const sqlList = (items: ReadonlyArray<string>) => `[${items.map(quote).join(", ")}]`

/** Filter values that exist in the data (for the combined-filter query). */
export const COMMON = { country: "US", device: "mobile", utmSource: "newsletter" } as const

/**
 * Clicks per hour: growth over the period, a daily cycle peaking 15:00 UTC, quieter weekends,
 * two campaign days and ±10% noise; sums exactly to `clicks`.
 */
export const hourlyCounts = (spec: DatasetSpec): Array<{ startMs: number; count: number; offset: number }> => {
  const hours = spec.days * 24
  const startMs = spec.endMs - spec.days * DAY
  let seed = 12345
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
  const spikes = new Set([Math.floor(spec.days * 0.4), Math.floor(spec.days * 0.85)])
  const weights = Array.from({ length: hours }, (_, h) => {
    const t = startMs + h * HOUR
    const day = Math.floor(h / 24)
    const hourOfDay = new Date(t).getUTCHours()
    const weekday = new Date(t).getUTCDay()
    return (0.6 + (0.8 * day) / spec.days) *
      (1 + 0.5 * Math.cos((2 * Math.PI * (hourOfDay - 15)) / 24)) *
      (weekday === 0 || weekday === 6 ? 0.8 : 1) *
      (spikes.has(day) ? 3 : 1) *
      (0.9 + 0.2 * random())
  })
  const total = weights.reduce((a, b) => a + b, 0)
  const counts = weights.map((w) => Math.floor((w / total) * spec.clicks))
  let rest = spec.clicks - counts.reduce((a, b) => a + b, 0)
  for (let h = hours - 1; rest > 0; h = (h - 1 + hours) % hours, rest--) counts[h]++
  let offset = 0
  return counts.map((count, h) => {
    const row = { startMs: startMs + h * HOUR, count, offset }
    offset += count
    return row
  })
}

/**
 * The links (created once per connection as a temporary table): workspace by link index (the
 * big workspace has most of them), ids, domain, slug and a destination URL whose UTM values
 * (on every other link) the clicks carry, as deriveClick takes them from the destination.
 */
export const linksTableSql = (spec: DatasetSpec): string => {
  let bound = 0
  const whens = WORKSPACES.slice(0, -1).map((_, w) => {
    bound += WORKSPACES[w].share * spec.links
    return `WHEN link < ${Math.round(bound)} THEN ${w}`
  })
  const ws = `CASE ${whens.join(" ")} ELSE ${WORKSPACES.length - 1} END`
  return `CREATE OR REPLACE TEMP TABLE bench_links AS
    WITH b AS (SELECT range::INT AS link, ${ws} AS ws FROM range(${spec.links}))
    SELECT link,
      'ws_' || substr(md5('workspace' || ws), 1, 20) AS workspace_id,
      'lnk_' || substr(md5('link' || link), 1, 20) AS link_id,
      CASE WHEN ws = 0 AND link % 10 = 0 THEN 'links.acme.example' ELSE ${sqlList(WORKSPACES.map((w) => w.domain))}[ws + 1] END AS domain,
      substr(md5('slug' || link), 1, 7) AS slug,
      'https://www.example' || (link % 97) || '.com/p/' || link ||
        CASE WHEN link % 2 = 0 THEN '?utm_source=' || ${sqlList(UTM_SOURCES)}[1 + (link // 2) % ${UTM_SOURCES.length}]
          || '&utm_medium=' || ${sqlList(UTM_MEDIUMS)}[1 + (link // 3) % ${UTM_MEDIUMS.length}]
          || '&utm_campaign=' || ${sqlList(UTM_CAMPAIGNS)}[1 + (link // 5) % ${UTM_CAMPAIGNS.length}] ELSE '' END AS url,
      CASE WHEN link % 2 = 0 THEN ${sqlList(UTM_SOURCES)}[1 + (link // 2) % ${UTM_SOURCES.length}] END AS utm_source,
      CASE WHEN link % 2 = 0 THEN ${sqlList(UTM_MEDIUMS)}[1 + (link // 3) % ${UTM_MEDIUMS.length}] END AS utm_medium,
      CASE WHEN link % 2 = 0 THEN ${sqlList(UTM_CAMPAIGNS)}[1 + (link // 5) % ${UTM_CAMPAIGNS.length}] END AS utm_campaign
    FROM b`
}

/** The SELECT producing clicks [offset, offset + count) of the hour starting at startMs. */
export const hourSelect = (spec: DatasetSpec, hour: { startMs: number; count: number; offset: number }): string => {
  const u = (k: number) => `((hash(i * 31 + ${k}) % 1000003) / 1000003.0)`
  const places = Object.entries(PLACES)
    .map(([country, list]) => `WHEN country = '${country}' THEN ${sqlList(list.map(([r, c]) => `${r}|${c}`))}[1 + (hash(i * 31 + 9) % ${list.length})::INT]`)
    .join(" ")
  return `
    WITH g AS (
      SELECT ${hour.offset}::BIGINT + range AS i FROM range(${hour.count})
    ), r AS (
      SELECT i,
        (floor(pow(${spec.links + 1}, ${u(1)}))::BIGINT - 1) AS rank,
        ${u(2)} < 0.10 AS agent,
        ${u(7)} < 0.05 AS ab
      FROM g
    ), l AS (
      SELECT *, ((rank * 7919 + 13) % ${spec.links})::INT AS link FROM r
    ), w AS (
      SELECT *,
        ${weighted(COUNTRIES)}[1 + floor(${u(3)} * 200)::INT] AS country,
        string_split(CASE WHEN agent THEN 'other|' || ${weighted(AGENTS, 10)}[1 + floor(${u(4)} * 10)::INT] || '|Unknown'
                          ELSE ${weighted(DEVICES)}[1 + floor(${u(4)} * 200)::INT] END, '|') AS dbo
      FROM l
    ), p AS (
      SELECT *, string_split(CASE ${places} END, '|') AS place FROM w
    )
    SELECT
      epoch_ms(${hour.startMs}::BIGINT + floor(${u(5)} * ${HOUR})::BIGINT) AS timestamp,
      k.workspace_id, k.link_id, k.domain, k.slug, k.url,
      CASE WHEN agent THEN 'agent' ELSE 'people' END AS audience,
      country,
      place[1] AS region,
      place[2] AS city,
      dbo[1] AS device,
      dbo[2] AS browser,
      dbo[3] AS os,
      CASE WHEN agent THEN NULL ELSE ${weighted(REFERERS)}[1 + floor(${u(6)} * 200)::INT] END AS referer_host,
      k.utm_source, k.utm_medium, k.utm_campaign,
      NULL::VARCHAR AS utm_term,
      NULL::VARCHAR AS utm_content,
      CASE WHEN ab THEN (hash(i * 31 + 8) % 2)::INTEGER END AS ab_variant,
      format('{:016x}', hash(i // 3 + 1000000007)) AS visitor_hash
    FROM p JOIN bench_links k ON k.link = p.link`
}

const COLUMN_LIST = CLICK_COLUMNS.map(([name, type]) => `${name}::${type} AS ${name}`).join(", ")

/**
 * Writes the dataset: one merged file and manifest per hour. Hours are spread over the given
 * connections (one statement each at a time). Returns the number of files.
 */
export const generateClicks = async (
  clicksDir: string,
  spec: DatasetSpec,
  connections: ReadonlyArray<DuckDBConnection>,
  onProgress?: (done: number, total: number) => void
): Promise<number> => {
  const hours = hourlyCounts(spec).filter((h) => h.count > 0)
  let next = 0
  let done = 0
  const worker = async (duck: DuckDBConnection) => {
    await duck.run(linksTableSql(spec))
    while (next < hours.length) {
      const hour = hours[next++]
      const dir = path.join(clicksDir, partitionOf(hour.startMs).dir)
      await mkdir(dir, { recursive: true })
      const name = `merged-${spec.endMs}.parquet`
      await duck.run(`COPY (SELECT ${COLUMN_LIST} FROM (${hourSelect(spec, hour)}) ORDER BY workspace_id, link_id, timestamp)
                      TO ${quote(path.join(dir, name))} (${PARQUET_FORMAT}, ROW_GROUP_SIZE ${SORTED_ROW_GROUP_SIZE})`)
      await writeFile(path.join(dir, MANIFEST), JSON.stringify({ merged: [name], replaced: [] }))
      onProgress?.(++done, hours.length)
    }
  }
  await Promise.all(connections.map(worker))
  return hours.length
}
