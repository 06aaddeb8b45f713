import type { DuckDBConnection } from "@duckdb/node-api"
import fc from "fast-check"
import { copyFile, readdir, rm, utimes } from "node:fs/promises"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { compactClicks } from "../../control/analytics/compaction.ts"
import { analyticsWindow } from "../../control/analytics/resolve.ts"
import { rollupFinder, rollupOf, rollupSetFor } from "../../control/analytics/rollup.ts"
import { GROUP_BYS, type GroupBy, INTERVALS } from "../../control/analytics/schema.ts"
import { analyticsSql, type BoundSql, type ClickFilter } from "../../control/analytics/sql.ts"
import { PLANS } from "../../control/kernel/plans.ts"
import type { ClickRecord } from "../../shared/clicks/click.ts"
import { writeClicksParquet } from "../../shared/clicks/clickCsv.ts"
import { listClickFiles } from "../../shared/clicks/files.ts"
import { openDuckDb, partitionOf } from "../../shared/clicks/parquet.ts"
import { clickRecord } from "../support/clickRecord.ts"
import { removeDir, tempDir } from "../support/processes.ts"

/**
 * Rollups (control/analytics/rollup.ts) never change an answer: on random filters, windows,
 * intervals, buckets and groupings, the query that reads rollups for whole days answers exactly
 * what the query over raw files answers, over data that has compacted days, a partly merged
 * today, late clicks in a compacted day, a day file without a rollup (written before rollups or
 * by a pass that crashed between them) and a rollup a crash left without its day file.
 * RICOCHET_ROLLUP_SEED replays a run; the seed is printed.
 */

const HOUR = 3_600_000
const DAY = 24 * HOUR
const NOW = Date.parse("2030-06-15T12:34:56.789Z")
const SPAN_DAYS = 12
const SEED = Number(process.env.RICOCHET_ROLLUP_SEED ?? Date.now() % 2 ** 31)
const RUNS = Number(process.env.RICOCHET_ROLLUP_RUNS ?? 120)

const WORKSPACES = ["ws_a", "ws_b"]
const LINKS = [["lnk_1", "ws_a", "acme.localhost"], ["lnk_2", "ws_a", "go.acme.localhost"], ["lnk_3", "ws_a", "acme.localhost"], ["lnk_4", "ws_b", "b.localhost"]] as const
const POOLS = {
  country: ["US", "DE", "GB", null],
  device: ["desktop", "mobile", "tablet"],
  browser: ["Chrome", "Safari", "Firefox"],
  os: ["Windows", "iOS", "Android"],
  refererHost: ["t.co", "www.google.com", null],
  utmSource: ["newsletter", "twitter", null],
  utmMedium: ["email", "social", null],
  utmCampaign: ["launch", "spring", null],
  utmTerm: ["a", null],
  utmContent: ["x", null]
} as const
const REGIONS: Record<string, ReadonlyArray<readonly [string, string]>> = { US: [["CA", "San Francisco"], ["NY", "New York"]], DE: [["BE", "Berlin"]] }

let duck: DuckDBConnection
let clicksDir: string
let files: Array<string>
let rollups: ReadonlyMap<string, string>

/** A small PRNG so the data follows the printed seed too. */
const prng = (seed: number) => {
  let s = seed >>> 0 || 1
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32)
}

const rowsOf = async (sql: BoundSql) =>
  (await duck.runAndReadAll(sql.text, [...sql.params])).getRowObjects().map((row) =>
    Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === "bigint" ? Number(v) : v]))
  )

const writeHour = async (clicks: ReadonlyArray<ClickRecord>, name: string) => {
  const byDir = new Map<string, Array<ClickRecord>>()
  for (const c of clicks) byDir.set(partitionOf(c.timestamp).dir, [...(byDir.get(partitionOf(c.timestamp).dir) ?? []), c])
  for (const [dir, list] of byDir) await writeClicksParquet(duck, list, path.join(clicksDir, dir, name))
}

beforeAll(async () => {
  console.log(`analytics rollup property: seed ${SEED} (RICOCHET_ROLLUP_SEED=${SEED} replays it)`)
  duck = await openDuckDb()
  clicksDir = await tempDir("ricochet-rollup-")
  const random = prng(SEED)
  const pick = <T>(list: ReadonlyArray<T>): T => list[Math.floor(random() * list.length)]
  const makeClick = (timestamp: number): ClickRecord => {
    const [linkId, workspaceId, domain] = pick(LINKS)
    const country = pick(POOLS.country)
    const place = country === null ? undefined : REGIONS[country] === undefined ? undefined : pick(REGIONS[country])
    const agent = random() < 0.2
    return clickRecord({
      timestamp,
      workspaceId,
      linkId,
      domain,
      slug: linkId.slice(4),
      url: `https://example.com/${linkId}`,
      audience: agent ? "agent" : "people",
      country,
      region: place?.[0] ?? null,
      city: place?.[1] ?? null,
      device: pick(POOLS.device),
      browser: pick(POOLS.browser),
      os: pick(POOLS.os),
      refererHost: agent ? null : pick(POOLS.refererHost),
      utmSource: pick(POOLS.utmSource),
      utmMedium: pick(POOLS.utmMedium),
      utmCampaign: pick(POOLS.utmCampaign),
      utmTerm: pick(POOLS.utmTerm),
      utmContent: pick(POOLS.utmContent),
      visitorHash: `v${Math.floor(random() * 50)}`
    })
  }
  const start = NOW - SPAN_DAYS * DAY
  // Clicks in a few hours of each day (one DuckDB write per hour directory keeps setup short),
  // at any minute of them, so windows still cut through hours.
  const HOURS = [0, 5, 12, 13, 23]
  const when = (days: number) => {
    const t = Math.floor((start + Math.floor(random() * days) * DAY) / DAY) * DAY + pick(HOURS) * HOUR + Math.floor(random() * HOUR)
    return Math.min(t, NOW)
  }
  const clicks = Array.from({ length: 3000 }, () => makeClick(when(SPAN_DAYS + 1)))
  await writeHour(clicks, "e1-1.parquet")
  // Finished days become day files with rollups; today's settled hours a partial day file.
  await compactClicks(clicksDir, async (sql) => void (await duck.run(sql)), NOW, { settleMs: 0 })
  // Late clicks into compacted days: read raw until the next pass.
  const late = Array.from({ length: 200 }, () => makeClick(Math.max(start, when(SPAN_DAYS - 2))))
  await writeHour(late, "e1-2.parquet")
  // A day file whose rollup is missing (written before rollups): read raw.
  const dayDir = path.join(clicksDir, partitionOf(NOW - 5 * DAY).dir, "..")
  const dayFile = (await readdir(dayDir)).find((name) => name.startsWith("day-"))!
  await rm(rollupOf(path.join(dayDir, dayFile))!)
  // A rollup a crash left behind (its day file never named by the manifest): a copy of another
  // day's rollup, which would double-count if it were read.
  const otherDir = path.join(clicksDir, partitionOf(NOW - 3 * DAY).dir, "..")
  const otherRollup = (await readdir(otherDir)).find((name) => name.startsWith("rollup-"))!
  await copyFile(path.join(otherDir, otherRollup), rollupOf(path.join(otherDir, "day-1.parquet"))!)
  files = await listClickFiles(clicksDir, start - DAY, NOW + DAY)
  rollups = await rollupFinder()(files)
}, 300_000)

afterAll(async () => {
  duck?.closeSync()
  if (clicksDir !== undefined) await removeDir(clicksDir)
})

const subset = <T>(pool: ReadonlyArray<T | null>) => fc.subarray(pool.filter((v): v is T => v !== null), { maxLength: 2 })

/** Filters mostly empty (as dashboards ask), sometimes one, sometimes several. */
const filterArb = fc.record({
  linkIds: fc.option(fc.subarray(LINKS.map(([id]) => id), { minLength: 1, maxLength: 2 }), { freq: 4 }),
  domain: fc.option(fc.constantFrom("acme.localhost", "go.acme.localhost", "b.localhost"), { freq: 5 }),
  countries: fc.oneof({ weight: 6, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: subset(POOLS.country) }),
  devices: fc.oneof({ weight: 8, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: subset(POOLS.device) }),
  browsers: fc.oneof({ weight: 12, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: subset(POOLS.browser.map((b) => b.toLowerCase())) }),
  oses: fc.oneof({ weight: 6, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: subset(POOLS.os) }),
  referers: fc.oneof({ weight: 10, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: subset(["t.co", "WWW.GOOGLE.COM", "(direct)"]) }),
  utmSources: fc.oneof({ weight: 10, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: subset(POOLS.utmSource) }),
  utmMediums: fc.oneof({ weight: 6, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: subset(POOLS.utmMedium) }),
  utmCampaigns: fc.oneof({ weight: 6, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: subset(POOLS.utmCampaign) }),
  audience: fc.constantFrom(null, null, "people", "agent")
})

/** A window from an interval and plan, or any span of milliseconds over the data. */
const windowArb = fc.oneof(
  fc.record({ interval: fc.constantFrom(...INTERVALS), plan: fc.constantFrom(...PLANS) }).map(({ interval, plan }) => analyticsWindow(interval, plan, NOW)),
  fc.tuple(fc.integer({ min: NOW - (SPAN_DAYS + 1) * DAY, max: NOW + HOUR }), fc.integer({ min: 0, max: 14 * DAY })).map(([fromMs, length]) => ({ fromMs, toMs: fromMs + length }))
)

describe("rollup answers are the raw answers", () => {
  /**
   * Runs the property on `runs` random questions with filters from `filters`: the query reading
   * rollups answers exactly what the raw query answers. Returns how many read the rollup rows
   * `counted` picks out (any rollup by default).
   */
  const rollupsAgree = async (
    filters: fc.Arbitrary<Omit<ClickFilter, "workspaceId" | "fromMs" | "toMs">>,
    runs: number,
    counted: (sql: BoundSql) => boolean = (sql) => sql.text.includes("rollup_set")
  ) => {
    let rolled = 0
    await fc.assert(
      fc.asyncProperty(
        filters,
        fc.constantFrom(...WORKSPACES),
        windowArb,
        fc.constantFrom<GroupBy>(...GROUP_BYS),
        fc.constantFrom<"hour" | "day">("hour", "day"),
        fc.integer({ min: 1, max: 30 }),
        async (filter, workspaceId, window, groupBy, bucket, limit) => {
          const f: ClickFilter = { workspaceId, ...window, ...filter }
          const withRollups = analyticsSql(files, f, groupBy, limit, bucket, rollups)
          if (counted(withRollups)) rolled++
          expect(await rowsOf(withRollups)).toEqual(await rowsOf(analyticsSql(files, f, groupBy, limit, bucket)))
        }
      ),
      { seed: SEED, numRuns: runs }
    )
    return rolled
  }

  it("on random filters, windows, intervals, buckets and groupings", async () => {
    expect(rollups.size).toBeGreaterThan(5)
    // The property must have exercised rollups, not only the raw path.
    expect(await rollupsAgree(filterArb, RUNS)).toBeGreaterThan(RUNS / 10)
  }, 300_000)

  // Windows that cut through hours holding clicks (00, 05, 12, 13 and 23 have them) at both ends.
  const dayStart = Math.floor(NOW / DAY) * DAY
  it.each<[string, number, number]>([
    ["12:30 ten days back to 13:20 eight days back", dayStart - 10 * DAY + 12.5 * HOUR, dayStart - 8 * DAY + 13.33 * HOUR],
    ["05:10 to 23:45 of one day", dayStart - 6 * DAY + 5.17 * HOUR, dayStart - 6 * DAY + 23.75 * HOUR],
    ["23:59 to 00:01 the next day", dayStart - 4 * DAY - 60_000, dayStart - 3 * DAY + 60_000],
    ["within one hour", dayStart - 7 * DAY + 12.1 * HOUR, dayStart - 7 * DAY + 12.9 * HOUR],
    ["00:00 to 05:00:00.000 exactly", dayStart - 9 * DAY, dayStart - 9 * DAY + 5 * HOUR]
  ])("on a window from %s", async (_, fromMs, toMs) => {
    for (const workspaceId of WORKSPACES) {
      for (const [groupBy, bucket] of [["count", "day"], ["timeseries", "hour"], ["timeseries", "day"], ["countries", "day"], ["top_links", "day"]] as const) {
        const f: ClickFilter = {
          workspaceId, fromMs, toMs, linkIds: null, domain: null, countries: [], devices: [], browsers: [], oses: [],
          referers: [], utmSources: [], utmMediums: [], utmCampaigns: [], audience: null
        }
        const withRollups = analyticsSql(files, f, groupBy, 100, bucket, rollups)
        // Less than a whole hour: nothing to read from a rollup.
        expect(withRollups.text.includes("rollup_set")).toBe(toMs - fromMs >= HOUR)
        expect(await rowsOf(withRollups)).toEqual(await rowsOf(analyticsSql(files, f, groupBy, 100, bucket)))
      }
    }
  })

  it("on filters across dimensions (the daily-only set)", async () => {
    const acrossDimensions = filterArb.map((filters) => ({
      ...filters,
      linkIds: null,
      countries: filters.countries.length > 0 ? filters.countries : ["US"],
      devices: filters.devices.length > 0 ? filters.devices : ["mobile", "desktop"]
    }))
    expect(await rollupsAgree(acrossDimensions, RUNS / 2, (sql) => sql.params.includes("filters/day"))).toBeGreaterThan(RUNS / 20)
  }, 300_000)
})

describe("which rollup set answers a question", () => {
  const none: ClickFilter = {
    workspaceId: "ws_a", fromMs: 0, toMs: 1, linkIds: null, domain: null, countries: [], devices: [], browsers: [], oses: [],
    referers: [], utmSources: [], utmMediums: [], utmCampaigns: [], audience: null
  }
  it.each<[string, Partial<ClickFilter>, GroupBy, string | null, string | null]>([
    // name, filters, grouping, the set read for an hourly bucket, the set read for a daily one
    ["a count, any domain and audience", { domain: "a", audience: "agent" }, "count", "total/day", "total/day"],
    ["a timeseries", {}, "timeseries", "total", "total/day"],
    ["a timeseries by country", { countries: ["US"] }, "timeseries", "country", "country/day"],
    ["cities of some countries", { countries: ["US"] }, "cities", "city/day", "city/day"],
    ["top links", {}, "top_links", "link/day", "link/day"],
    ["one link's timeseries", { linkIds: ["l"] }, "timeseries", "link", "link/day"],
    ["one link by country: not rolled up together", { linkIds: ["l"] }, "countries", null, null],
    ["devices of mobile clicks", { devices: ["mobile"] }, "devices", "device/day", "device/day"],
    ["country and device filters together: by day only", { countries: ["US"], devices: ["mobile"] }, "timeseries", null, "filters/day"],
    ["referers filtered by utm source", { utmSources: ["x"] }, "referers", "filters/day", "filters/day"],
    ["regions filtered by device: not rolled up together", { devices: ["mobile"] }, "regions", null, null],
    ["direct referers", { referers: ["(direct)"] }, "referers", "referer/day", "referer/day"]
  ])("%s", (_, filter, groupBy, hourSet, daySet) => {
    expect(rollupSetFor({ ...none, ...filter }, groupBy, "hour")).toBe(hourSet)
    expect(rollupSetFor({ ...none, ...filter }, groupBy, "day")).toBe(daySet)
  })
})

describe("rollups at compaction", () => {
  /** A clicks directory whose day three days back (two clicks) has been compacted at NOW. */
  const withCompactedDay = async (
    test: (setting: { dir: string; connection: DuckDBConnection; run: (sql: string) => Promise<void>; day: number; dateDir: string }) => Promise<void>
  ) => {
    const dir = await tempDir("ricochet-rollup-compaction-")
    const connection = await openDuckDb()
    try {
      const run = async (sql: string) => void (await connection.run(sql))
      const day = NOW - 3 * DAY
      await writeClicksParquet(connection, [clickRecord({ timestamp: day }), clickRecord({ timestamp: day + HOUR })], path.join(dir, partitionOf(day).dir, "e1-1.parquet"))
      await compactClicks(dir, run, NOW, { settleMs: 0 })
      await test({ dir, connection, run, day, dateDir: path.join(dir, partitionOf(day).dir, "..") })
    } finally {
      connection.closeSync()
      await removeDir(dir)
    }
  }

  it("go with their day file: written before the manifest names it, removed with it after the grace period", () =>
    withCompactedDay(async ({ dir, connection, run, day, dateDir }) => {
      const first = (await readdir(dateDir)).filter((n) => n.endsWith(".parquet")).sort()
      expect(first).toEqual([expect.stringMatching(/^day-\d+\.parquet$/), expect.stringMatching(/^rollup-v2-\d+\.parquet$/)])
      // A late click: the next pass writes a new day file and rollup; the old pair stays for readers, then goes.
      await writeClicksParquet(connection, [clickRecord({ timestamp: day + 2 * HOUR })], path.join(dir, partitionOf(day + 2 * HOUR).dir, "e1-2.parquet"))
      await compactClicks(dir, run, NOW + 1000, { settleMs: 0 })
      const second = (await readdir(dateDir)).filter((n) => n.endsWith(".parquet"))
      expect(second).toHaveLength(4)
      const manifestFile = path.join(dateDir, "_day.json")
      const old = new Date(NOW - HOUR)
      await utimes(manifestFile, old, old)
      await compactClicks(dir, run, NOW + 2000, { settleMs: 0 })
      const third = (await readdir(dateDir)).filter((n) => n.endsWith(".parquet")).sort()
      expect(third).toEqual([`day-${NOW + 1000}.parquet`, `rollup-v2-${NOW + 1000}.parquet`])
      const listed = await listClickFiles(dir, day - DAY, NOW)
      const found = await rollupFinder()(listed)
      expect(found.size).toBe(1)
      const filter: ClickFilter = {
        workspaceId: "ws_a", fromMs: day - DAY, toMs: NOW, linkIds: null, domain: null, countries: [], devices: [], browsers: [],
        oses: [], referers: [], utmSources: [], utmMediums: [], utmCampaigns: [], audience: null
      }
      const question = analyticsSql(listed, filter, "count", 10, "day", found)
      expect(question.text).toContain("rollup_set")
      const [row] = (await connection.runAndReadAll(question.text, [...question.params])).getRowObjects()
      expect(Number(row.clicks)).toBe(3)
    }), 60_000)

  it("of an earlier layout are not read; the next pass merges their day again with a current rollup", () =>
    withCompactedDay(async ({ dir, connection, run, day, dateDir }) => {
      // As written before daily rows: `rollup-{ts}`, without them.
      await rm(path.join(dateDir, `rollup-v2-${NOW}.parquet`))
      await run(`COPY (SELECT 'total' AS rollup_set, 1 AS clicks) TO '${path.join(dateDir, `rollup-${NOW}.parquet`)}' (FORMAT parquet)`)
      const before = await listClickFiles(dir, day - DAY, NOW)
      expect((await rollupFinder()(before)).size).toBe(0)
      // Nothing else to merge, yet the day is merged again for its rollup.
      expect((await compactClicks(dir, run, NOW + 1000, { settleMs: 0 })).merged).toBe(1)
      const after = await listClickFiles(dir, day - DAY, NOW + 1000)
      expect(after.map((f) => path.basename(f))).toEqual([`day-${NOW + 1000}.parquet`])
      expect([...(await rollupFinder()(after)).values()].map((f) => path.basename(f))).toEqual([`rollup-v2-${NOW + 1000}.parquet`])
      // And is left alone on the pass after.
      expect((await compactClicks(dir, run, NOW + 2000, { settleMs: 0 })).merged).toBe(0)
      // A pass merges a bounded number of such days, newest first.
      for (const daysAgo of [4, 5, 6]) {
        const at = NOW - daysAgo * DAY
        await writeClicksParquet(connection, [clickRecord({ timestamp: at })], path.join(dir, partitionOf(at).dir, "e1-1.parquet"))
      }
      await compactClicks(dir, run, NOW + 2500, { settleMs: 0 })
      const dayDirOf = (daysAgo: number) => path.join(dir, partitionOf(NOW - daysAgo * DAY).dir, "..")
      for (const daysAgo of [4, 5, 6]) await rm(path.join(dayDirOf(daysAgo), `rollup-v2-${NOW + 2500}.parquet`))
      expect((await compactClicks(dir, run, NOW + 2600, { settleMs: 0, rollupCatchUpDays: 2 })).merged).toBe(2)
      expect(await readdir(dayDirOf(4))).toContain(`rollup-v2-${NOW + 2600}.parquet`)
      expect(await readdir(dayDirOf(6))).not.toContain(`rollup-v2-${NOW + 2600}.parquet`)
      expect((await compactClicks(dir, run, NOW + 2700, { settleMs: 0, rollupCatchUpDays: 2 })).merged).toBe(1)
      expect(await readdir(dayDirOf(6))).toContain(`rollup-v2-${NOW + 2700}.parquet`)
      // The day so far too, though fewer settled hours wait than would merge it otherwise.
      const today = Math.floor(NOW / DAY) * DAY
      for (const h of [0, 1, 2, 3]) await writeClicksParquet(connection, [clickRecord({ timestamp: today + h * HOUR })], path.join(dir, partitionOf(today + h * HOUR).dir, "e1-1.parquet"))
      await compactClicks(dir, run, NOW + 2800, { settleMs: 0 })
      const todayDir = path.join(dir, partitionOf(today).dir, "..")
      await rm(path.join(todayDir, `rollup-v2-${NOW + 2800}.parquet`))
      expect((await compactClicks(dir, run, NOW + 2900, { settleMs: 0 })).merged).toBe(1)
      expect(await readdir(todayDir)).toContain(`rollup-v2-${NOW + 2900}.parquet`)
      const old = new Date(NOW - HOUR)
      await utimes(path.join(dateDir, "_day.json"), old, old)
      await compactClicks(dir, run, NOW + 3000, { settleMs: 0 })
      expect((await readdir(dateDir)).filter((n) => n.endsWith(".parquet")).sort()).toEqual([`day-${NOW + 1000}.parquet`, `rollup-v2-${NOW + 1000}.parquet`])
    }), 60_000)
})
