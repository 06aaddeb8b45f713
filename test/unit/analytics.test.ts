import type { DuckDBConnection } from "@duckdb/node-api"
import { mkdir, readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises"
import * as path from "node:path"
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { applyRetention, compactClicks } from "../../control/analytics/compaction.ts"
import { analyticsWindow } from "../../control/analytics/resolve.ts"
import { GROUP_BYS, type Interval, INTERVALS } from "../../control/analytics/schema.ts"
import { analyticsSql, type BoundSql, bucketStarts, type ClickFilter, SqlParams, whereClause } from "../../control/analytics/sql.ts"
import { PLAN_LIMITS, type Plan, PLANS } from "../../control/kernel/plans.ts"
import type { ClickRecord } from "../../shared/clicks/click.ts"
import { fileSpan, type HourManifest, hourView, listClickFiles, MANIFEST } from "../../shared/clicks/files.ts"
import { writeClicksParquet } from "../../shared/clicks/clickCsv.ts"
import { openDuckDb, partitionOf } from "../../shared/clicks/parquet.ts"
import { clickRecord } from "../support/clickRecord.ts"
import { removeDir, tempDir } from "../support/processes.ts"
import { sleep } from "../support/time.ts"

/**
 * The analytics building blocks in process (docs/decisions.md#analytics; docs/api.md, Analytics):
 * the window and its plan cut, timeseries buckets, the DuckDB query and its quoting, the
 * hour view that makes compaction invisible to readers, compaction itself over real Parquet
 * files, and retention.
 */

const HOUR = 3_600_000
const DAY = 24 * HOUR
const NOW = Date.parse("2030-06-15T12:34:56.789Z")

let duck: DuckDBConnection
/** A second DuckDB for readers that run while the compactor uses the first. */
let reader: DuckDBConnection
beforeAll(async () => {
  duck = await openDuckDb()
  reader = await openDuckDb()
})
afterAll(() => {
  duck?.closeSync()
  reader?.closeSync()
})

const rowsOf = async (connection: DuckDBConnection, sql: string | BoundSql): Promise<Array<Record<string, unknown>>> => {
  const result = typeof sql === "string" ? await connection.runAndReadAll(sql) : await connection.runAndReadAll(sql.text, [...sql.params])
  return result.getRowObjects().map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === "bigint" ? Number(v) : v])))
}
const rows = (sql: string | BoundSql) => rowsOf(duck, sql)
const run = async (sql: string) => {
  await duck.run(sql)
}
const list = (files: ReadonlyArray<string>) => `[${files.map((f) => `'${f.replace(/'/g, "''")}'`).join(", ")}]`

let serial = 0
const click = (fields: Partial<ClickRecord> = {}): ClickRecord => {
  serial++
  return clickRecord({
    timestamp: NOW,
    url: `https://example.com/landing?n=${serial}`,
    country: "US",
    visitorHash: `v${serial}`,
    ...fields
  })
}

describe("analyticsWindow: the interval, cut to the plan's history", () => {
  const intervalDays: Record<Exclude<Interval, "all">, number> = { "24h": 1, "7d": 7, "30d": 30, "90d": 90, "1y": 365 }
  const historyDays: Record<Plan, number> = { free: 30, basic: 365, pro: 1095, business: 1825 }

  it("keeps the plan history table of docs/decisions.md#keys-plans-and-rate-limits", () => {
    for (const plan of PLANS) expect(PLAN_LIMITS[plan].analyticsHistoryDays, plan).toBe(historyDays[plan])
  })

  const table = PLANS.flatMap((plan) =>
    INTERVALS.map((interval) => {
      const wanted = interval === "all" ? historyDays[plan] : intervalDays[interval]
      return { plan, interval, days: Math.min(wanted, historyDays[plan]) }
    })
  )

  it.each(table)("$plan plan, interval $interval: starts $days days back and ends now", ({ plan, interval, days }) => {
    const window = analyticsWindow(interval, plan, NOW)
    expect(window).toEqual({ fromMs: NOW - days * DAY, toMs: NOW })
  })

  it("cuts long intervals on short plans (free: 90d, 1y and all are 30 days)", () => {
    for (const interval of ["90d", "1y", "all"] as const) {
      expect(NOW - analyticsWindow(interval, "free", NOW).fromMs).toBe(30 * DAY)
    }
    expect(NOW - analyticsWindow("30d", "free", NOW).fromMs).toBe(30 * DAY)
    expect(NOW - analyticsWindow("7d", "free", NOW).fromMs).toBe(7 * DAY)
  })
})

describe("bucketStarts: every bucket of the window, UTC", () => {
  const hourly = (fromIso: string, count: number) => Array.from({ length: count }, (_, i) => new Date(Date.parse(fromIso) + i * HOUR).toISOString())
  const daily = (fromIso: string, count: number) => Array.from({ length: count }, (_, i) => new Date(Date.parse(fromIso) + i * DAY).toISOString())
  const table = [
    {
      name: "24h hourly, mid-hour: the partial first hour and the current hour are both present (25)",
      from: NOW - DAY, to: NOW, bucket: "hour" as const,
      expected: hourly("2030-06-14T12:00:00.000Z", 25)
    },
    {
      name: "24h hourly, exactly on the hour (25: the window's first instant and now)",
      from: Date.parse("2030-06-14T12:00:00.000Z"), to: Date.parse("2030-06-15T12:00:00.000Z"), bucket: "hour" as const,
      expected: hourly("2030-06-14T12:00:00.000Z", 25)
    },
    {
      name: "7d daily: the partial first day through today (8)",
      from: NOW - 7 * DAY, to: NOW, bucket: "day" as const,
      expected: daily("2030-06-08T00:00:00.000Z", 8)
    },
    {
      name: "30d daily (31)",
      from: NOW - 30 * DAY, to: NOW, bucket: "day" as const,
      expected: daily("2030-05-16T00:00:00.000Z", 31)
    },
    {
      name: "1y daily across a year end (366)",
      from: Date.parse("2030-01-10T08:00:00.000Z") - 365 * DAY, to: Date.parse("2030-01-10T08:00:00.000Z"), bucket: "day" as const,
      expected: daily("2029-01-10T00:00:00.000Z", 366)
    }
  ]
  it.each(table)("$name", ({ from, to, bucket, expected }) => {
    expect(bucketStarts(from, to, bucket)).toEqual(expected)
  })
})

describe("whereClause / analyticsSql over a real Parquet file", () => {
  let dir: string
  let file: string
  const fixture: Array<ClickRecord> = []

  beforeAll(async () => {
    dir = await tempDir("ricochet-sql-it's-")
    const base = { timestamp: NOW - 2 * HOUR }
    fixture.push(
      click({ ...base, linkId: "lnk_1", country: "US", device: "desktop", browser: "Chrome", os: "Windows", refererHost: "www.google.com" }),
      click({ ...base, linkId: "lnk_1", country: "US", device: "mobile", browser: "Safari", os: "iOS", refererHost: null }),
      click({ ...base, linkId: "lnk_2", country: "DE", device: "mobile", browser: "Chrome", os: "Android", refererHost: "t.co", utmSource: "newsletter", utmMedium: "email", utmCampaign: "spring" }),
      click({ ...base, linkId: "lnk_2", country: "FR", device: "tablet", browser: "Safari", os: "iOS", utmSource: "twitter", utmMedium: "social", utmCampaign: "launch" }),
      click({ ...base, linkId: "lnk_3", domain: "go.acme.com", country: null, device: "other", browser: "WebKit", os: "Unknown", audience: "agent" }),
      click({ ...base, linkId: "lnk_3", domain: "go.acme.com", country: "JP", device: "desktop", browser: "O'Brien Browser", os: "Windows", audience: "agent", refererHost: "t.co" }),
      click({ ...base, workspaceId: "ws_b", linkId: "lnk_9", country: "US" }),
      click({ timestamp: NOW - 3 * DAY, linkId: "lnk_1", country: "US" })
    )
    file = path.join(dir, "clicks.parquet")
    await writeClicksParquet(duck, fixture, file)
  })
  afterAll(async () => {
    await removeDir(dir)
  })

  const filter = (fields: Partial<ClickFilter> = {}): ClickFilter => ({
    workspaceId: "ws_a",
    fromMs: NOW - DAY,
    toMs: NOW,
    linkIds: null,
    domain: null,
    countries: [],
    devices: [],
    browsers: [],
    oses: [],
    referers: [],
    utmSources: [],
    utmMediums: [],
    utmCampaigns: [],
    audience: null,
    ...fields
  })
  const count = async (f: ClickFilter) => (await rows(analyticsSql([file], f, "count", 100, "hour")))[0]

  const table: ReadonlyArray<{ name: string; filter: Partial<ClickFilter>; clicks: number; people: number }> = [
    { name: "the workspace, in the window (other workspaces and older clicks excluded)", filter: {}, clicks: 6, people: 4 },
    { name: "a wider window takes the older click", filter: { fromMs: NOW - 7 * DAY }, clicks: 7, people: 5 },
    { name: "another workspace", filter: { workspaceId: "ws_b" }, clicks: 1, people: 1 },
    { name: "link ids (ORed)", filter: { linkIds: ["lnk_1", "lnk_3"] }, clicks: 4, people: 2 },
    { name: "no link at all (an empty id list)", filter: { linkIds: [] }, clicks: 0, people: 0 },
    { name: "domain", filter: { domain: "go.acme.com" }, clicks: 2, people: 0 },
    { name: "countries (ORed, any case)", filter: { countries: ["us", "DE"] }, clicks: 3, people: 3 },
    { name: "devices", filter: { devices: ["mobile", "tablet"] }, clicks: 3, people: 3 },
    { name: "browser", filter: { browsers: ["Safari"] }, clicks: 2, people: 2 },
    { name: "os", filter: { oses: ["iOS", "Android"] }, clicks: 3, people: 3 },
    { name: "referer host", filter: { referers: ["t.co"] }, clicks: 2, people: 1 },
    { name: "referer (direct)", filter: { referers: ["(direct)"] }, clicks: 3, people: 2 },
    { name: "referer host or (direct)", filter: { referers: ["www.google.com", "(direct)"] }, clicks: 4, people: 3 },
    { name: "utm source", filter: { utmSources: ["newsletter", "twitter"] }, clicks: 2, people: 2 },
    { name: "utm medium", filter: { utmMediums: ["email"] }, clicks: 1, people: 1 },
    { name: "utm campaign", filter: { utmCampaigns: ["launch"] }, clicks: 1, people: 1 },
    { name: "agents only", filter: { audience: "agent" }, clicks: 2, people: 0 },
    { name: "people only", filter: { audience: "people" }, clicks: 4, people: 4 },
    { name: "filters are ANDed", filter: { countries: ["US"], devices: ["mobile"] }, clicks: 1, people: 1 },
    { name: "a browser name with a quote matches literally", filter: { browsers: ["O'Brien Browser"] }, clicks: 1, people: 0 }
  ]
  it.each(table)("$name", async ({ filter: fields, clicks, people }) => {
    expect(await count(filter(fields))).toEqual({ clicks, people, agents: clicks - people })
  })

  // NUL ended a quoted literal early in DuckDB's parser ("unterminated quoted string"); bound, it is one more character.
  const injections = ["x' OR '1'='1", "x') OR ('1'='1", "'; DROP TABLE t; --", "x'' OR ''1''=''1", "\\' OR 1=1 --", "x\u0000' OR 1=1 --", "\u0000"]
  const fields: ReadonlyArray<readonly [string, (v: string) => Partial<ClickFilter>, (v: string) => string]> = [
    ["workspaceId", (v) => ({ workspaceId: v }), (v) => v],
    ["linkIds", (v) => ({ linkIds: [v] }), (v) => v],
    ["domain", (v) => ({ domain: v }), (v) => v],
    ["countries", (v) => ({ countries: [v] }), (v) => v.toUpperCase()],
    ["devices", (v) => ({ devices: [v] }), (v) => v],
    ["browsers", (v) => ({ browsers: [v] }), (v) => v.toLowerCase()],
    ["oses", (v) => ({ oses: [v] }), (v) => v.toLowerCase()],
    ["referers", (v) => ({ referers: [v] }), (v) => v.toLowerCase()],
    ["utmSources", (v) => ({ utmSources: [v] }), (v) => v],
    ["utmMediums", (v) => ({ utmMediums: [v] }), (v) => v],
    ["utmCampaigns", (v) => ({ utmCampaigns: [v] }), (v) => v]
  ]
  it.each(injections)("a value %j cannot break out of its string literal", async (value) => {
    for (const [name, make, shown] of fields) {
      const f = filter(make(value))
      // The value is a bound parameter: never in the text, one whole value of the parameters…
      const params = new SqlParams()
      const text = whereClause(f, params)
      expect(text, name).not.toContain(shown(value))
      expect(params.values, name).toContain(shown(value))
      // …and DuckDB agrees: nothing matches, and every grouping still parses.
      expect(await count(f), name).toEqual({ clicks: 0, people: 0, agents: 0 })
      for (const groupBy of GROUP_BYS) expect(await rows(analyticsSql([file], f, groupBy, 10, "day")), `${name} ${groupBy}`).toBeDefined()
    }
  })

  it("reads files whose path holds a quote", () => {
    expect(dir).toContain("'")
  })

  it("timeseries buckets carry the ISO starts bucketStarts produces", async () => {
    const hours = await rows(analyticsSql([file], filter({ fromMs: NOW - 7 * DAY }), "timeseries", 100, "hour"))
    expect(hours).toEqual([
      { start: new Date(Math.floor((NOW - 3 * DAY) / HOUR) * HOUR).toISOString(), clicks: 1, people: 1, agents: 0 },
      { start: new Date(Math.floor((NOW - 2 * HOUR) / HOUR) * HOUR).toISOString(), clicks: 6, people: 4, agents: 2 }
    ])
    const days = await rows(analyticsSql([file], filter({ fromMs: NOW - 7 * DAY }), "timeseries", 100, "day"))
    const starts = bucketStarts(NOW - 7 * DAY, NOW, "day")
    for (const row of days) expect(starts).toContain(row.start)
    expect(days.map((r) => r.clicks)).toEqual([1, 6])
  })

  it("breakdowns: most clicks first, ties by key, nulls last, limit applied", async () => {
    expect(await rows(analyticsSql([file], filter(), "countries", 100, "hour"))).toEqual([
      { country: "US", clicks: 2, people: 2, agents: 0 },
      { country: "DE", clicks: 1, people: 1, agents: 0 },
      { country: "FR", clicks: 1, people: 1, agents: 0 },
      { country: "JP", clicks: 1, people: 0, agents: 1 },
      { country: null, clicks: 1, people: 0, agents: 1 }
    ])
    expect(await rows(analyticsSql([file], filter(), "countries", 2, "hour"))).toHaveLength(2)
    expect(await rows(analyticsSql([file], filter(), "referers", 100, "hour"))).toEqual([
      { referer: "(direct)", clicks: 3, people: 2, agents: 1 },
      { referer: "t.co", clicks: 2, people: 1, agents: 1 },
      { referer: "www.google.com", clicks: 1, people: 1, agents: 0 }
    ])
    expect(await rows(analyticsSql([file], filter(), "utm_sources", 100, "hour"))).toEqual([
      { utmSource: "newsletter", clicks: 1, people: 1, agents: 0 },
      { utmSource: "twitter", clicks: 1, people: 1, agents: 0 }
    ])
    expect(await rows(analyticsSql([file], filter(), "top_links", 100, "hour"))).toEqual([
      { linkId: "lnk_1", clicks: 2, people: 2, agents: 0 },
      { linkId: "lnk_2", clicks: 2, people: 2, agents: 0 },
      { linkId: "lnk_3", clicks: 2, people: 0, agents: 2 }
    ])
  })
})

describe("fileSpan: the time a click file can hold, from its place in the layout", () => {
  const rows: ReadonlyArray<readonly [file: string, span: readonly [string, string] | null]> = [
    ["/c/date=2030-06-10/hour=07/e1-5.parquet", ["2030-06-10T07:00:00Z", "2030-06-10T08:00:00Z"]],
    ["/c/date=2030-06-10/hour=23/merged-1.parquet", ["2030-06-10T23:00:00Z", "2030-06-11T00:00:00Z"]],
    ["/c/date=2030-06-10/day-9.parquet", ["2030-06-10T00:00:00Z", "2030-06-11T00:00:00Z"]],
    ["/c/elsewhere/history.parquet", null],
    ["/c/hour=07/e1-5.parquet", null],
    ["/c/date=2030-6-10/day-9.parquet", null]
  ]
  it.each(rows)("%s", (file, span) => {
    expect(fileSpan(file)).toEqual(span === null ? null : { start: Date.parse(span[0]), end: Date.parse(span[1]) })
  })
})

describe("analyticsSql: files wholly inside the window skip the time test, the others keep it", () => {
  let dir: string
  beforeAll(async () => {
    dir = await tempDir("ricochet-span-")
  })
  afterAll(async () => {
    await removeDir(dir)
  })
  const window = (fromIso: string, toIso: string): ClickFilter => ({
    workspaceId: "ws_a", fromMs: Date.parse(fromIso), toMs: Date.parse(toIso), linkIds: null, domain: null, countries: [], devices: [],
    browsers: [], oses: [], referers: [], utmSources: [], utmMediums: [], utmCampaigns: [], audience: null
  })

  it("counts exactly the clicks inside the window across day, hour and stray files", async () => {
    const at = (iso: string) => click({ timestamp: Date.parse(iso), workspaceId: "ws_a" })
    const dayFile = path.join(dir, "date=2030-06-10", "day-1.parquet")
    const middleDay = path.join(dir, "date=2030-06-11", "day-1.parquet")
    const hourFile = path.join(dir, "date=2030-06-12", "hour=05", "e1-1.parquet")
    const stray = path.join(dir, "stray.parquet")
    await writeClicksParquet(duck, [at("2030-06-10T01:00:00Z"), at("2030-06-10T23:00:00Z")], dayFile)
    await writeClicksParquet(duck, [at("2030-06-11T00:00:00Z"), at("2030-06-11T12:00:00Z"), at("2030-06-11T23:59:59.999Z")], middleDay)
    await writeClicksParquet(duck, [at("2030-06-12T05:10:00Z"), at("2030-06-12T05:50:00Z")], hourFile)
    await writeClicksParquet(duck, [at("2030-06-09T12:00:00Z"), at("2030-06-11T06:00:00Z")], stray)
    const files = [dayFile, middleDay, hourFile, stray]

    // The first day is cut at noon, the hour at 05:30; the middle day lies wholly inside.
    const f = window("2030-06-10T12:00:00Z", "2030-06-12T05:30:00Z")
    const sql = analyticsSql(files, f, "count", 100, "day")
    expect(sql.text).toContain("UNION ALL")
    expect((await rows(sql))[0]).toMatchObject({ clicks: 1 + 3 + 1 + 1 })

    // A window holding every file's partition whole: no time test at all, the same answer as with one.
    const all = window("2030-06-10T00:00:00Z", "2030-06-12T23:59:59.999Z")
    expect((await rows(analyticsSql([dayFile, middleDay, hourFile], all, "count", 100, "day")))[0]).toMatchObject({ clicks: 7 })
    expect(analyticsSql([dayFile, middleDay, hourFile], all, "count", 100, "day").text).not.toContain("timestamp >=")
  })
})

describe("hourView: the files that hold an hour's clicks exactly once", () => {
  const manifest = (merged: Array<string>, replaced: Array<string>): HourManifest => ({ merged, replaced })
  const table: ReadonlyArray<{ name: string; entries: Array<string>; manifest: HourManifest | null; view: Array<string> }> = [
    {
      name: "no manifest: every engine file, nothing else",
      entries: ["e1-1.parquet", "e2-7.parquet", "e1-1.parquet.abc.tmp", "e1-1.parquet.abc.ndjson.tmp", "notes.txt"],
      manifest: null,
      view: ["e1-1.parquet", "e2-7.parquet"]
    },
    {
      name: "no manifest: a merged file written before its manifest is not read",
      entries: ["e1-1.parquet", "merged-5.parquet"],
      manifest: null,
      view: ["e1-1.parquet"]
    },
    {
      name: "manifest: the merged file instead of the files it replaced",
      entries: ["_manifest.json", "e1-1.parquet", "e2-7.parquet", "merged-5.parquet"],
      manifest: manifest(["merged-5.parquet"], ["e1-1.parquet", "e2-7.parquet"]),
      view: ["merged-5.parquet"]
    },
    {
      name: "manifest: engine files that landed after the merge are read too",
      entries: ["_manifest.json", "e1-1.parquet", "e1-9.parquet", "merged-5.parquet"],
      manifest: manifest(["merged-5.parquet"], ["e1-1.parquet"]),
      view: ["merged-5.parquet", "e1-9.parquet"]
    },
    {
      name: "manifest: older merged files and deleted replaced files are ignored",
      entries: ["_manifest.json", "merged-5.parquet", "merged-9.parquet", "e1-9.parquet"],
      manifest: manifest(["merged-9.parquet"], ["e1-1.parquet", "e1-9.parquet"]),
      view: ["merged-9.parquet"]
    }
  ]
  it.each(table)("$name", ({ entries, manifest: m, view }) => {
    expect(hourView(entries, m)).toEqual(view)
  })
})

describe("compactClicks over real Parquet files", () => {
  let dir: string
  // Mid-day of yesterday: the hours under test are settled but their day is still the open one
  // at \`now\` (at 00:30 UTC, "three hours ago" would be a day that is over and merged whole).
  const now = Math.floor(Date.now() / 86_400_000) * 86_400_000 - 12 * 3_600_000 + 30 * 60_000
  const hourStart = (ms: number) => Math.floor(ms / HOUR) * HOUR
  /** Three hours back: finished and settled. */
  const oldHour = hourStart(now) - 3 * HOUR
  const currentHour = hourStart(now)
  const hourDir = (start: number) => path.join(dir, partitionOf(start).dir)

  beforeEach(async () => {
    dir = await tempDir("ricochet-compact-")
  })
  afterEach(async () => {
    await removeDir(dir)
  })

  /** Clicks in random order over two workspaces and three links. */
  const clicksIn = (start: number, n: number, seed: number) =>
    Array.from({ length: n }, (_, i) => {
      const k = (i * 7 + seed) % 11
      return click({
        timestamp: start + ((k * 997 + i * 13) % HOUR),
        workspaceId: k % 2 === 0 ? "ws_b" : "ws_a",
        linkId: `lnk_${k % 3}`,
        audience: i % 4 === 0 ? "agent" : "people"
      })
    })

  const countOf = async (files: ReadonlyArray<string>) =>
    files.length === 0
      ? { n: 0, distinct: 0, people: 0 }
      : (await rowsOf(reader, `SELECT count(*)::BIGINT AS n, count(DISTINCT url)::BIGINT AS "distinct", count(*) FILTER (WHERE audience = 'people')::BIGINT AS people FROM read_parquet(${list(files)})`))[0]
  const expectedOf = (clicks: ReadonlyArray<ClickRecord>) => ({ n: clicks.length, distinct: clicks.length, people: clicks.filter((c) => c.audience === "people").length })
  const allFiles = () => listClickFiles(dir, 0, now + HOUR)

  /** Two engines' files in an old hour, one file in the current hour. */
  const seed = async () => {
    const a = clicksIn(oldHour, 40, 1)
    const b = clicksIn(oldHour, 25, 5)
    const c = clicksIn(currentHour, 10, 3)
    await writeClicksParquet(duck, a, path.join(hourDir(oldHour), "e1-100.parquet"))
    await writeClicksParquet(duck, b, path.join(hourDir(oldHour), "e2-200.parquet"))
    await writeClicksParquet(duck, c, path.join(hourDir(currentHour), "e1-300.parquet"))
    return { a, b, c, all: [...a, ...b, ...c] }
  }

  it("merges a finished hour into one sorted merged-*.parquet; counts stay identical", async () => {
    const { a, b, all } = await seed()
    const before = await countOf(await allFiles())
    expect(before).toEqual(expectedOf(all))
    const byWorkspaceBefore = await rows(`SELECT workspace_id, link_id, count(*)::BIGINT AS n FROM read_parquet(${list(await allFiles())}) GROUP BY ALL ORDER BY ALL`)

    const result = await compactClicks(dir, run, now)
    expect(result.merged).toBe(1)

    const entries = (await readdir(hourDir(oldHour))).sort()
    const merged = entries.filter((e) => e.startsWith("merged-"))
    expect(merged).toEqual([`merged-${now}.parquet`])
    expect(entries).toContain(MANIFEST)
    const manifest = JSON.parse(await readFile(path.join(hourDir(oldHour), MANIFEST), "utf8"))
    expect(manifest.merged).toEqual([`merged-${now}.parquet`])
    expect([...manifest.replaced].sort()).toEqual(["e1-100.parquet", "e2-200.parquet"])
    expect(entries.filter((e) => e.endsWith(".tmp"))).toEqual([])

    // The current hour is not finished: left alone.
    expect(await readdir(hourDir(currentHour))).toEqual(["e1-300.parquet"])

    // The merged file alone holds the hour, sorted by workspace, link, time.
    const mergedPath = path.join(hourDir(oldHour), merged[0])
    expect(await countOf([mergedPath])).toEqual(expectedOf([...a, ...b]))
    const order = await rows(`SELECT workspace_id AS w, link_id AS l, epoch_ms(timestamp)::BIGINT AS t FROM read_parquet(${list([mergedPath])})`)
    const sorted = [...order].sort((x, y) =>
      String(x.w).localeCompare(String(y.w)) || String(x.l).localeCompare(String(y.l)) || Number(x.t) - Number(y.t))
    expect(order).toEqual(sorted)

    const after = await allFiles()
    expect(after.filter((f) => f.startsWith(hourDir(oldHour)))).toEqual([mergedPath])
    expect(await countOf(after)).toEqual(before)
    expect(await rows(`SELECT workspace_id, link_id, count(*)::BIGINT AS n FROM read_parquet(${list(after)}) GROUP BY ALL ORDER BY ALL`)).toEqual(byWorkspaceBefore)
  })

  it("a query that listed its files before, during or after compaction sees each click exactly once", async () => {
    const { all } = await seed()
    const expected = expectedOf(all)
    const listedBefore = await allFiles()
    const during: Array<unknown> = []
    // Inside the merge (the merged file is being written) and all the way through, a reader lists and reads.
    let compacting = true
    const poller = (async () => {
      while (compacting) {
        during.push(await countOf(await allFiles()))
        await sleep(1)
      }
    })()
    await compactClicks(dir, async (sql) => {
      await run(sql)
      during.push(await countOf(await allFiles()))
    }, now)
    compacting = false
    await poller
    expect(during.length).toBeGreaterThan(0)
    for (const seen of during) expect(seen).toEqual(expected)

    // The listing taken before still reads: replaced files are kept through the grace period.
    expect(await countOf(listedBefore)).toEqual(expected)
    expect(await countOf(await allFiles())).toEqual(expected)

    // Between the merged file's rename and the manifest's: the merged file is not read yet.
    const manifestPath = path.join(hourDir(oldHour), MANIFEST)
    const manifest = await readFile(manifestPath, "utf8")
    await rm(manifestPath)
    expect(await countOf(await allFiles())).toEqual(expected)
    await writeFile(manifestPath, manifest)
    expect(await countOf(await allFiles())).toEqual(expected)
  })

  it("deletes replaced files only after the grace period, and re-merges late engine files", async () => {
    const { all } = await seed()
    await compactClicks(dir, run, now, { graceMs: 5 * 60_000 })
    // The grace period runs from the manifest's mtime: put it on the pinned clock with everything else.
    await utimes(path.join(hourDir(oldHour), MANIFEST), now / 1000, now / 1000)
    const manifestMtime = (await stat(path.join(hourDir(oldHour), MANIFEST))).mtimeMs
    const present = async () => (await readdir(hourDir(oldHour))).filter((e) => e.endsWith(".parquet")).sort()

    // Within the grace period: kept.
    expect((await compactClicks(dir, run, manifestMtime + 4 * 60_000, { graceMs: 5 * 60_000 })).removed).toBe(0)
    expect(await present()).toEqual(["e1-100.parquet", "e2-200.parquet", `merged-${now}.parquet`])
    expect(await countOf(await allFiles())).toEqual(expectedOf(all))

    // A late roll from an engine lands in the merged hour: read alongside the merged file.
    const late = clicksIn(oldHour, 5, 9)
    await writeClicksParquet(duck, late, path.join(hourDir(oldHour), "e3-400.parquet"))
    expect(await countOf(await allFiles())).toEqual(expectedOf([...all, ...late]))

    // After the grace period: the replaced files go; the late file and the merged file are merged again.
    const later = manifestMtime + 6 * 60_000
    const second = await compactClicks(dir, run, later, { graceMs: 5 * 60_000 })
    expect(second.removed).toBe(2)
    expect(second.merged).toBe(1)
    expect(await present()).toEqual(["e3-400.parquet", `merged-${later}.parquet`, `merged-${now}.parquet`].sort())
    const manifest = JSON.parse(await readFile(path.join(hourDir(oldHour), MANIFEST), "utf8"))
    expect(manifest.merged).toEqual([`merged-${later}.parquet`])
    expect([...manifest.replaced].sort()).toEqual(["e1-100.parquet", "e2-200.parquet", "e3-400.parquet"])
    expect(await countOf(await allFiles())).toEqual(expectedOf([...all, ...late]))

    // Another grace period later the first merged file and the late file go too; nothing is re-merged.
    await utimes(path.join(hourDir(oldHour), MANIFEST), later / 1000, later / 1000)
    const third = await compactClicks(dir, run, later + 6 * 60_000, { graceMs: 5 * 60_000 })
    expect(third).toEqual({ merged: 0, removed: 2 })
    expect(await present()).toEqual([`merged-${later}.parquet`])
    expect(await countOf(await allFiles())).toEqual(expectedOf([...all, ...late]))
  })

  it("leaves an hour alone while it settles", async () => {
    const clicks = clicksIn(oldHour, 12, 2)
    await writeClicksParquet(duck, clicks, path.join(hourDir(oldHour), "e1-1.parquet"))
    await writeClicksParquet(duck, clicksIn(oldHour, 3, 4), path.join(hourDir(oldHour), "e2-1.parquet"))
    // Five minutes after the hour ended, ten minutes of settle time: untouched.
    const early = oldHour + HOUR + 5 * 60_000
    expect(await compactClicks(dir, run, early, { settleMs: 10 * 60_000 })).toEqual({ merged: 0, removed: 0 })
    expect((await readdir(hourDir(oldHour))).sort()).toEqual(["e1-1.parquet", "e2-1.parquet"])
    // Once settled: merged.
    const settled = oldHour + HOUR + 10 * 60_000
    expect((await compactClicks(dir, run, settled, { settleMs: 10 * 60_000 })).merged).toBe(1)
    expect((await readdir(hourDir(oldHour))).sort()).toEqual([MANIFEST, "e1-1.parquet", "e2-1.parquet", `merged-${settled}.parquet`])
  })

  it("merges an hour of a single engine file once, and never re-merges a merged hour", async () => {
    await writeClicksParquet(duck, clicksIn(oldHour, 4, 2), path.join(hourDir(oldHour), "e1-1.parquet"))
    expect((await compactClicks(dir, run, now)).merged).toBe(1)
    expect((await compactClicks(dir, run, now + 1)).merged).toBe(0)
  })

  it("removes stale temporary files, keeps fresh ones (a write may be under way)", async () => {
    await writeClicksParquet(duck, clicksIn(currentHour, 3, 1), path.join(hourDir(currentHour), "e1-1.parquet"))
    await mkdir(hourDir(oldHour), { recursive: true })
    const stale = [
      path.join(hourDir(oldHour), "e1-5.parquet.0a1b2c.tmp"),
      path.join(hourDir(oldHour), "e1-5.parquet.0a1b2c.ndjson.tmp"),
      path.join(hourDir(currentHour), `merged-1.parquet.tmp`)
    ]
    const fresh = path.join(hourDir(currentHour), "e1-9.parquet.ffeedd.tmp")
    for (const file of [...stale, fresh]) await writeFile(file, "partial")
    const twoHoursAgo = new Date(now - 2 * HOUR)
    for (const file of stale) await utimes(file, twoHoursAgo, twoHoursAgo)
    const result = await compactClicks(dir, run, now)
    expect(result.removed).toBe(3)
    expect(await readdir(hourDir(oldHour))).toEqual([])
    expect((await readdir(hourDir(currentHour))).sort()).toEqual(["e1-1.parquet", "e1-9.parquet.ffeedd.tmp"])
  })
})

describe("applyRetention", () => {
  let dir: string
  beforeEach(async () => {
    dir = await tempDir("ricochet-retention-")
  })
  afterEach(async () => {
    await removeDir(dir)
  })

  const day = (ms: number) => `date=${new Date(ms).toISOString().slice(0, 10)}`

  it.each([
    { keepDays: 30, kept: [0, 1, 29, 30, 31], removed: [32, 40, 400] },
    { keepDays: 1825, kept: [0, 365, 1095, 1825, 1826], removed: [1827, 2000] }
  ])("keeping $keepDays days removes only older days", async ({ keepDays, kept, removed }) => {
    const names = (ages: ReadonlyArray<number>) => ages.map((age) => day(NOW - age * DAY))
    for (const name of [...names(kept), ...names(removed)]) {
      await mkdir(path.join(dir, name, "hour=00"), { recursive: true })
      await writeFile(path.join(dir, name, "hour=00", "e1-1.parquet"), "x")
    }
    await mkdir(path.join(dir, "not-a-day"))
    expect(await applyRetention(dir, keepDays, NOW)).toBe(removed.length)
    expect((await readdir(dir)).sort()).toEqual([...names(kept), "not-a-day"].sort())
  })

  it("a missing clicks directory is nothing to do", async () => {
    expect(await applyRetention(path.join(dir, "absent"), 30, NOW)).toBe(0)
  })
})

describe("compactClicks: finished days become one file each", () => {
  let dir: string
  beforeEach(async () => {
    dir = await tempDir("ricochet-day-")
  })
  afterEach(async () => {
    await removeDir(dir)
  })

  const at = (iso: string) => Date.parse(iso)
  const engineFile = async (ts: number, name: string, n: number) => {
    const target = path.join(dir, partitionOf(ts).dir, name)
    await writeClicksParquet(duck, Array.from({ length: n }, () => click({ timestamp: ts })), target)
    return target
  }
  const countAll = async (from: number, to: number) => {
    const files = await listClickFiles(dir, from, to)
    if (files.length === 0) return { files: 0, clicks: 0, distinct: 0 }
    const [row] = await rowsOf(reader, `SELECT count(*)::INTEGER AS clicks, count(DISTINCT url)::INTEGER AS distinct_urls FROM read_parquet(${list(files)}, hive_partitioning = false)`)
    return { files: files.length, clicks: row.clicks as number, distinct: row.distinct_urls as number }
  }

  it("merges a day's hours into one sorted file, switching readers with the day manifest; late files join on the next pass", async () => {
    const day = "2030-06-10"
    await engineFile(at(`${day}T01:10:00Z`), "e1-1.parquet", 3)
    await engineFile(at(`${day}T01:20:00Z`), "e2-1.parquet", 2)
    await engineFile(at(`${day}T17:00:00Z`), "e1-2.parquet", 4)
    const from = at(`${day}T00:00:00Z`)
    const to = at(`${day}T23:59:59Z`)
    expect(await countAll(from, to)).toEqual({ files: 3, clicks: 9, distinct: 9 })

    await compactClicks(dir, run, NOW, { settleMs: 0, graceMs: 60_000 })
    const dateDir = path.join(dir, `date=${day}`)
    const dayManifest = JSON.parse(await readFile(path.join(dateDir, "_day.json"), "utf8"))
    expect(dayManifest.merged).toHaveLength(1)
    expect(await countAll(from, to)).toEqual({ files: 1, clicks: 9, distinct: 9 })
    // The day file holds exactly the click columns, sorted by workspace, link, timestamp.
    const columns = await rowsOf(reader, `DESCRIBE SELECT * FROM read_parquet('${path.join(dateDir, dayManifest.merged[0])}', hive_partitioning = false)`)
    expect(columns.map((c) => c.column_name)).not.toContain("date")
    // A query over one hour of that day still counts only that hour (the day file is filtered by time).
    const files = await listClickFiles(dir, at(`${day}T17:00:00Z`), at(`${day}T17:59:59Z`))
    const [hour] = await rowsOf(reader, `SELECT count(*)::INTEGER AS n FROM read_parquet(${list(files)}, hive_partitioning = false) WHERE timestamp >= TIMESTAMP '${day} 17:00:00' AND timestamp < TIMESTAMP '${day} 18:00:00'`)
    expect(hour.n).toBe(4)

    // A late engine roll lands in an hour of the merged day: read at once, merged on the next pass.
    await engineFile(at(`${day}T05:00:00Z`), "e3-9.parquet", 5)
    expect(await countAll(from, to)).toEqual({ files: 2, clicks: 14, distinct: 14 })
    await compactClicks(dir, run, NOW + 1, { settleMs: 0, graceMs: 60_000 })
    expect(await countAll(from, to)).toEqual({ files: 1, clicks: 14, distinct: 14 })

    // Replaced files go after the grace period (files written now are years old at the test's NOW).
    await compactClicks(dir, run, NOW + 2, { settleMs: 0, graceMs: 60_000 })
    expect((await readdir(path.join(dateDir, "hour=01"))).filter((f) => f.endsWith(".parquet"))).toHaveLength(0)
    expect((await readdir(path.join(dateDir, "hour=05"))).filter((f) => f.endsWith(".parquet"))).toHaveLength(0)
    expect((await readdir(dateDir)).filter((f) => f.startsWith("day-"))).toHaveLength(1)
    expect(await countAll(from, to)).toEqual({ files: 1, clicks: 14, distinct: 14 })
  })

  it("merges the day so far once four settled hours wait, leaving the live hours to the engines", async () => {
    const day = "2030-06-12"
    const now = at(`${day}T09:30:00Z`)
    const from = at(`${day}T00:00:00Z`)
    const to = now
    const dateDir = path.join(dir, `date=${day}`)
    const dayFiles = async () => (await readdir(dateDir)).filter((f) => f.startsWith("day-"))
    for (const hour of ["01", "02", "03"]) await engineFile(at(`${day}T${hour}:10:00Z`), `e1-${hour}.parquet`, 2)
    await engineFile(at(`${day}T09:05:00Z`), "e1-09.parquet", 3)

    // Three settled hours: each merged on its own, no day file yet.
    await compactClicks(dir, run, now, { settleMs: 0, graceMs: 60_000 })
    expect(await dayFiles()).toEqual([])
    expect(await countAll(from, to)).toEqual({ files: 4, clicks: 9, distinct: 9 })

    // A fourth: the settled hours go into the day file; the live hour 09 stays as the engine wrote it.
    await engineFile(at(`${day}T05:10:00Z`), "e1-05.parquet", 4)
    await compactClicks(dir, run, now + 1, { settleMs: 0, graceMs: 60_000 })
    const manifest = JSON.parse(await readFile(path.join(dateDir, "_day.json"), "utf8"))
    expect(Object.keys(manifest.replaced).sort()).toEqual(["hour=01", "hour=02", "hour=03", "hour=05"])
    const listed = await listClickFiles(dir, from, to)
    expect(listed.map((f) => path.relative(dateDir, f)).sort()).toEqual([manifest.merged[0], path.join("hour=09", "e1-09.parquet")].sort())
    expect(await countAll(from, to)).toEqual({ files: 2, clicks: 13, distinct: 13 })

    // A late roll into a merged hour, and two new settled hours: read at once, not yet worth a rewrite.
    await engineFile(at(`${day}T02:40:00Z`), "e2-02.parquet", 1)
    await engineFile(at(`${day}T06:10:00Z`), "e1-06.parquet", 1)
    await engineFile(at(`${day}T07:10:00Z`), "e1-07.parquet", 1)
    await compactClicks(dir, run, now + 2, { settleMs: 0, graceMs: 60_000 })
    expect(await dayFiles()).toEqual([manifest.merged[0]])
    expect(await countAll(from, to)).toEqual({ files: 5, clicks: 16, distinct: 16 })

    // Once the day is over, all of it is one file.
    await compactClicks(dir, run, at("2030-06-13T00:00:00Z") + 3, { settleMs: 0, graceMs: 60_000 })
    const final = JSON.parse(await readFile(path.join(dateDir, "_day.json"), "utf8"))
    expect(final.merged[0]).not.toBe(manifest.merged[0])
    expect(await countAll(from, at(`${day}T23:59:59Z`))).toEqual({ files: 1, clicks: 16, distinct: 16 })
  })

  it("leaves today alone and merges only settled hours", async () => {
    const today = new Date(NOW).toISOString().slice(0, 10)
    await engineFile(NOW - 3 * HOUR, "e1-1.parquet", 2)
    await engineFile(NOW - 3 * HOUR + 60_000, "e2-1.parquet", 2)
    await compactClicks(dir, run, NOW, { settleMs: 0, graceMs: 60_000 })
    expect((await readdir(path.join(dir, `date=${today}`))).filter((f) => f === "_day.json")).toHaveLength(0)
    expect(await countAll(NOW - DAY, NOW)).toEqual({ files: 1, clicks: 4, distinct: 4 })
  })
})
