import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api"
import { existsSync } from "node:fs"
import { mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { performance } from "node:perf_hooks"
import postgres from "postgres"
import { compactClicks } from "../../control/analytics/compaction.ts"
import { analyticsWindow } from "../../control/analytics/resolve.ts"
import type { GroupBy, Interval } from "../../control/analytics/schema.ts"
import { rollupFinder } from "../../control/analytics/rollup.ts"
import { analyticsSql, type ClickFilter, recordedLinksSql } from "../../control/analytics/sql.ts"
import { cachedFileLister, listClickFiles } from "../../shared/clicks/files.ts"
import { openDuckDb, PARQUET_FORMAT, partitionOf, quote, SORTED_ROW_GROUP_SIZE } from "../../shared/clicks/parquet.ts"
import { CLICK_COLUMNS } from "../../shared/clicks/clickColumns.ts"
import {
  COMMON, type DatasetSpec, DAY, generateClicks, HOUR, hourSelect, linkId, linkOfRank, linksTableSql, WORKSPACES,
  workspaceId, workspaceOfLink
} from "../lib/analyticsData.ts"
import { loadIntoPostgres, postgresSql } from "../lib/analyticsPg.ts"
import { createBenchDatabase, Scope } from "../lib/processes.ts"
import type { ScenarioResult } from "../lib/result.ts"

export const description =
  "Ten dashboard questions on a size axis (1M and 10M clicks / 90 days / 10,000 links; 100M / 300 days / 100,000 links) in Parquet compacted by control (one file per finished day with its hourly and daily rollups, the day so far in one), through analyticsSql + ClickStore's file lister and rollup finder (GET /v1/analytics without HTTP); baseline: the same rows and questions in an indexed PostgreSQL table"

const num = (name: string, fallback: number) => {
  const value = Number(process.env[name])
  return Number.isFinite(value) && value > 0 ? value : fallback
}

/** A point of the size axis: how many clicks over how many links and days. */
interface Size {
  readonly label: string
  readonly clicks: number
  readonly links: number
  readonly days: number
}
const PRESETS: Record<string, Size> = {
  "1M": { label: "1M", clicks: 1_000_000, links: 10_000, days: 90 },
  "10M": { label: "10M", clicks: 10_000_000, links: 10_000, days: 90 },
  // A year of a busy workspace (issue 15).
  "100M": { label: "100M", clicks: 100_000_000, links: 100_000, days: 300 }
}
/** BENCH_ANALYTICS_SIZES picks points of the axis; BENCH_ANALYTICS_CLICKS (and _LINKS) asks one other size. */
const SIZES: ReadonlyArray<Size> = process.env.BENCH_ANALYTICS_CLICKS !== undefined
  ? [{ label: process.env.BENCH_ANALYTICS_CLICKS, clicks: Math.floor(num("BENCH_ANALYTICS_CLICKS", 10_000_000)), links: Math.floor(num("BENCH_ANALYTICS_LINKS", 10_000)), days: 90 }]
  : (process.env.BENCH_ANALYTICS_SIZES ?? "1M,10M,100M").split(",").map((label) => {
    const size = PRESETS[label.trim()]
    if (size === undefined) throw new Error(`BENCH_ANALYTICS_SIZES: ${label} is not one of ${Object.keys(PRESETS).join(", ")}`)
    return size
  })
/** Sizes above this skip the PostgreSQL baseline (loading and indexing 100M rows takes hours here). */
const PG_MAX_CLICKS = num("BENCH_ANALYTICS_PG_MAX_CLICKS", 10_000_000)
/** p95 goals of issue 15 per size; control's memory goal. */
const P95_GOAL_MS: Record<string, number> = { "10M": 100, "100M": 300 }
const MEMORY_GOAL_BYTES = 2 * 2 ** 30
/** Timed runs per query (after one warm-up pass). */
const RUNS = Math.floor(num("BENCH_ANALYTICS_RUNS", 10))
const PG_RUNS = Math.floor(num("BENCH_ANALYTICS_PG_RUNS", 5))
/** Engine files in the current, not yet compacted hour for the extra "fresh hour" measurement (0: skip). */
const FRESH_FILES = Math.floor(Number(process.env.BENCH_ANALYTICS_FRESH_FILES ?? 900))
/** Keep (and reuse, when the size matches) the generated Parquet data here instead of a temp dir. */
const DATA_DIR = process.env.BENCH_ANALYTICS_DATA_DIR
/** The what-if with one file per day (BENCH_ANALYTICS_WHATIF=1 runs it; it rewrites the whole dataset). */
const WHATIF = process.env.BENCH_ANALYTICS_WHATIF === "1"
const LIMIT = 100

const round = (n: number, digits = 1) => Number(n.toFixed(digits))
const median = (xs: ReadonlyArray<number>) => quantile(xs, 0.5)
const quantile = (xs: ReadonlyArray<number>, q: number) => {
  const sorted = [...xs].sort((a, b) => a - b)
  if (sorted.length === 0) return Number.NaN
  const pos = (sorted.length - 1) * q
  const lo = Math.floor(pos)
  return sorted[lo] + (sorted[Math.min(lo + 1, sorted.length - 1)] - sorted[lo]) * (pos - lo)
}

interface Question {
  readonly name: string
  readonly interval: Exclude<Interval, "1y" | "all">
  readonly groupBy: GroupBy
  readonly link: boolean
  readonly filters?: Partial<Pick<ClickFilter, "countries" | "devices" | "utmSources">>
}

const QUESTIONS: ReadonlyArray<Question> = [
  { name: "workspace count 24h", interval: "24h", groupBy: "count", link: false },
  { name: "workspace count 30d", interval: "30d", groupBy: "count", link: false },
  { name: "workspace timeseries 30d", interval: "30d", groupBy: "timeseries", link: false },
  { name: "countries 30d", interval: "30d", groupBy: "countries", link: false },
  { name: "top_links 30d", interval: "30d", groupBy: "top_links", link: false },
  { name: "devices 7d", interval: "7d", groupBy: "devices", link: false },
  { name: "referers 90d", interval: "90d", groupBy: "referers", link: false },
  { name: "one link timeseries 7d", interval: "7d", groupBy: "timeseries", link: true },
  { name: "one link count 30d", interval: "30d", groupBy: "count", link: true },
  {
    name: "filters combined 30d (country+device+utmSource, timeseries)",
    interval: "30d",
    groupBy: "timeseries",
    link: false,
    filters: { countries: [COMMON.country], devices: [COMMON.device], utmSources: [COMMON.utmSource] }
  }
]

const filterOf = (q: Question, nowMs: number, workspace: string, link: string): ClickFilter => ({
  workspaceId: workspace,
  ...analyticsWindow(q.interval, "pro", nowMs),
  linkIds: q.link ? [link] : null,
  domain: null,
  countries: q.filters?.countries ?? [],
  devices: q.filters?.devices ?? [],
  browsers: [],
  oses: [],
  referers: [],
  utmSources: q.filters?.utmSources ?? [],
  utmMediums: [],
  utmCampaigns: [],
  audience: null
})
const bucketOf = (q: Question) => (q.interval === "24h" ? "hour" : "day")

const plain = (rows: ReadonlyArray<Record<string, unknown>>) =>
  rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === "bigint" ? Number(v) : typeof v === "string" && /^\d+$/.test(v) && ["clicks", "people", "agents"].includes(k) ? Number(v) : v])))

/** The file lister the route uses (ClickStore.files), created in run(); `listNow` is the data's now. */
let lister: ReturnType<typeof cachedFileLister>
let listNow = 0
/** ClickStore.rollups, created in runSize(). */
let findRollups: ReturnType<typeof rollupFinder>
const listFiles = (_clicksDir: string, fromMs: number, toMs: number) => lister(fromMs, toMs, listNow)

/** One question the way GET /v1/analytics answers it: list the files, then ask DuckDB. */
const askDuckDb = async (duck: DuckDBConnection, clicksDir: string, filter: ClickFilter, q: Question) => {
  const files = await listFiles(clicksDir, filter.fromMs, filter.toMs)
  if (files.length === 0) return { rows: [], files: 0 }
  const { text, params } = analyticsSql(files, filter, q.groupBy, LIMIT, bucketOf(q), await findRollups(files))
  const reader = await duck.runAndReadAll(text, [...params])
  return { rows: plain(reader.getRowObjects()), files: files.length }
}

const sameRows = (a: ReadonlyArray<Record<string, unknown>>, b: ReadonlyArray<Record<string, unknown>>) =>
  JSON.stringify(a) === JSON.stringify(b)

/** What the files were written with: a kept dataset written otherwise is generated again. */
const LAYOUT = `${PARQUET_FORMAT}, ROW_GROUP_SIZE ${SORTED_ROW_GROUP_SIZE}, day so far merged, hourly and daily rollups`
/** Earlier layouts that control's compaction brings to LAYOUT by itself (as it does an upgraded install's files). */
const UPGRADABLE = [`${PARQUET_FORMAT}, ROW_GROUP_SIZE ${SORTED_ROW_GROUP_SIZE}, day so far merged, hourly rollups`]

/** Control's compaction pass after pass (it bounds some work per pass) until one merges nothing; the days merged. */
const compactUntilDone = async (clicksDir: string, writer: DuckDBConnection, nowMs: number): Promise<number> => {
  let days = 0
  for (let merged = -1; merged !== 0; days += merged) {
    merged = (await compactClicks(clicksDir, async (sql) => {
      await writer.run(sql)
    }, nowMs)).merged
  }
  return days
}

/** Writes the dataset unless DATA_DIR already holds one of this size and layout. */
const prepareData = async (clicksDir: string, spec: DatasetSpec, log: (line: string) => void): Promise<{ spec: DatasetSpec; generatedS: number | null }> => {
  const marker = path.join(path.dirname(clicksDir), "dataset.json")
  if (DATA_DIR !== undefined && existsSync(marker)) {
    const kept = JSON.parse(await readFile(marker, "utf8")) as DatasetSpec & { layout?: string }
    const sameSize = kept.clicks === spec.clicks && kept.links === spec.links && kept.days === spec.days
    if (sameSize && kept.layout !== undefined && (kept.layout === LAYOUT || UPGRADABLE.includes(kept.layout))) {
      // Control's compaction brings files of an earlier layout up to date (as an upgraded
      // install's), a bounded number of days a pass; here every pass until none is left.
      const started = performance.now()
      const writer = await openDuckDb(1)
      const days = await compactUntilDone(clicksDir, writer, kept.endMs).finally(() => writer.closeSync())
      if (days > 0) log(`brought the dataset in ${clicksDir} up to the current layout: ${days} days merged again in ${((performance.now() - started) / 1000).toFixed(1)} s`)
      log(`reusing the dataset in ${clicksDir} (ends ${new Date(kept.endMs).toISOString()})`)
      await writeFile(marker, JSON.stringify({ ...kept, layout: LAYOUT }))
      return { spec: kept, generatedS: null }
    }
  }
  await rm(clicksDir, { recursive: true, force: true })
  await mkdir(clicksDir, { recursive: true })
  const start = performance.now()
  const writers = [await openDuckDb(1), await openDuckDb(1)]
  try {
    let reported = 0
    await generateClicks(clicksDir, spec, writers, (done, total) => {
      if (done - reported >= total / 10 || done === total) {
        reported = done
        log(`generated ${done}/${total} hours`)
      }
    })
    // Then control's own compaction, as it runs in production: finished days become one file each.
    const compactStart = performance.now()
    const days = await compactUntilDone(clicksDir, writers[0], spec.endMs)
    log(`compacted ${days} days in ${((performance.now() - compactStart) / 1000).toFixed(1)} s`)
  } finally {
    for (const writer of writers) writer.closeSync()
  }
  await writeFile(marker, JSON.stringify({ ...spec, layout: LAYOUT }))
  return { spec, generatedS: (performance.now() - start) / 1000 }
}

const rollupBytes = async (dir: string): Promise<number> => {
  let total = 0
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    total += entry.isDirectory() ? await rollupBytes(full) : entry.name.startsWith("rollup-") ? (await stat(full)).size : 0
  }
  return total
}

const dirBytes = async (dir: string): Promise<number> => {
  let total = 0
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    total += entry.isDirectory() ? await dirBytes(full) : (await stat(full)).size
  }
  return total
}

interface SizeResult extends ScenarioResult {
  readonly size: Size
  readonly p95: ReadonlyArray<number>
  readonly rssPeak: number
  /** PostgreSQL's median over DuckDB's, null when the baseline was skipped. */
  readonly ratio: number | null
  readonly agreeing: number | null
}

export default async function run(): Promise<ScenarioResult> {
  const results: Array<SizeResult> = []
  for (const size of SIZES) results.push(await runSize(size))
  const figures: Record<string, number | string> = {}
  const baseline: Record<string, number | string> = {}
  const ratios: Record<string, number> = {}
  for (const r of results) {
    for (const [k, v] of Object.entries(r.figures)) figures[`[${r.size.label}] ${k}`] = v
    for (const [k, v] of Object.entries(r.baseline ?? {})) baseline[`[${r.size.label}] ${k}`] = v
    for (const [k, v] of Object.entries(r.ratios ?? {})) ratios[`[${r.size.label}] ${k}`] = v
  }
  // The curve: each question's p95 against the number of clicks.
  const curve = QUESTIONS.map((q, i) => `${q.name}: ${results.map((r) => `${r.size.label} ${round(r.p95[i])} ms`).join(" → ")}`)
  for (const line of curve) console.error(`[analytics] p95 curve ${line}`)
  const goals: Array<{ goal: string; value: number | string; met: boolean }> = []
  for (const r of results) {
    const goal = P95_GOAL_MS[r.size.label]
    const worst = Math.max(...r.p95)
    if (goal !== undefined) goals.push({ goal: `every question p95 ≤ ${goal} ms at ${r.size.label} (slowest p95)`, value: round(worst), met: worst <= goal })
    goals.push({ goal: `control memory < 2 GB at ${r.size.label} (peak RSS of the query process)`, value: `${round(r.rssPeak / 2 ** 20, 0)} MB`, met: r.rssPeak < MEMORY_GOAL_BYTES })
    if (r.size.label === "10M" && r.ratio !== null) goals.push({ goal: "≥ 30× the indexed PostgreSQL baseline at 10M (ratio of median query times)", value: round(r.ratio, 2), met: r.ratio >= 30 })
    if (r.agreeing !== null) goals.push({ goal: `same answers as PostgreSQL at ${r.size.label}`, value: `${r.agreeing}/${QUESTIONS.length}`, met: r.agreeing === QUESTIONS.length })
  }
  return {
    figures,
    baseline,
    ratios,
    goals,
    notes: [`p95 against clicks: ${curve.join("; ")}`, ...results.flatMap((r) => (r.notes ?? []).map((n) => `[${r.size.label}] ${n}`))]
  }
}

async function runSize(size: Size): Promise<SizeResult> {
  const log = (line: string) => console.error(`[analytics ${size.label}] ${line}`)
  const root = DATA_DIR !== undefined ? path.join(DATA_DIR, size.label) : path.join(tmpdir(), `ricochet-bench-analytics-${process.pid}-${Date.now()}`)
  const clicksDir = path.join(root, "clicks")
  // Cleans up on success, failure and (through the harness) Ctrl-C, newest first.
  const scope = new Scope()
  try {
    await mkdir(root, { recursive: true })
    scope.defer("remove analytics data", () =>
      DATA_DIR === undefined ? rm(root, { recursive: true, force: true }) : rm(path.join(root, "clicks.csv"), { force: true })
    )
    const wanted: DatasetSpec = { clicks: size.clicks, days: size.days, links: size.links, endMs: Math.floor(Date.now() / HOUR) * HOUR }
    const { spec, generatedS } = await prepareData(clicksDir, wanted, log)
    const database = await createBenchDatabase(scope)
    const sql = postgres(database.url, { max: 1, onnotice: () => {} })
    scope.defer("close PostgreSQL client", () => sql.end({ timeout: 5 }))
    // The query side as ClickStore sets it up: an in-process DuckDB with two threads.
    const instance = await DuckDBInstance.create(":memory:", { threads: "2" })
    const duck = await instance.connect()
    // As ClickStore opens it.
    await duck.run("SET parquet_metadata_cache = true")
    lister = cachedFileLister(clicksDir)
    findRollups = rollupFinder()
    listNow = spec.endMs
    // The query side's memory, sampled while it answers (control holds the same DuckDB).
    let rssPeak = process.memoryUsage().rss
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss)
    }, 100)
    scope.defer("stop memory sampling", () => clearInterval(sampler))
    scope.defer("close DuckDB", () => {
      duck.closeSync()
      instance.closeSync()
    })

    const allFiles = await listClickFiles(clicksDir, spec.endMs - spec.days * DAY, spec.endMs)
    const dataBytes = await dirBytes(clicksDir)
    const workspace = workspaceId(0)
    // The single-link questions ask about the big workspace's most clicked link (the worst case).
    let rank = 0
    while (workspaceOfLink(linkOfRank(rank, spec.links), spec.links) !== 0) rank++
    const link = linkId(linkOfRank(rank, spec.links))
    // One "now" for every run of every question, so DuckDB and PostgreSQL answer identical windows.
    // A kept dataset ends at the hour it was generated in: ask as if that hour were now.
    const nowMs = spec.endMs + (Date.now() % HOUR)
    const filters = QUESTIONS.map((q) => filterOf(q, nowMs, workspace, link))

    // DuckDB over Parquet.
    log(`DuckDB: ${QUESTIONS.length} questions × (1 warm-up + ${RUNS}) over ${allFiles.length} files`)
    const duckTimes = QUESTIONS.map(() => [] as Array<number>)
    const duckAnswers: Array<Array<Record<string, unknown>>> = []
    const filesRead: Array<number> = []
    for (let pass = 0; pass <= RUNS; pass++) {
      for (const [i, q] of QUESTIONS.entries()) {
        const start = performance.now()
        const answer = await askDuckDb(duck, clicksDir, filters[i], q)
        const ms = performance.now() - start
        if (pass > 0) duckTimes[i].push(ms)
        duckAnswers[i] = answer.rows
        filesRead[i] = answer.files
      }
    }
    // What the route adds for top_links: the recorded host/slug/url of the listed links.
    const topLinksIndex = QUESTIONS.findIndex((q) => q.groupBy === "top_links")
    const topIds = duckAnswers[topLinksIndex].map((row) => String(row.linkId))
    const recordedTimes: Array<number> = []
    for (let pass = 0; pass <= RUNS && topIds.length > 0; pass++) {
      const f = filters[topLinksIndex]
      const start = performance.now()
      const files = await listFiles(clicksDir, f.fromMs, f.toMs)
      const recorded = recordedLinksSql(files, workspace, topIds)
      await duck.runAndReadAll(recorded.text, [...recorded.params])
      if (pass > 0) recordedTimes.push(performance.now() - start)
    }
    // The listing alone, per window length.
    const listIntervals = [["24h", 0], ["7d", 5], ["30d", 1], ["90d", 6]] as const
    const listMedians: Record<string, number> = {}
    for (const [label, i] of listIntervals) {
      const times: Array<number> = []
      for (let pass = 0; pass <= RUNS; pass++) {
        const start = performance.now()
        await listFiles(clicksDir, filters[i].fromMs, filters[i].toMs)
        if (pass > 0) times.push(performance.now() - start)
      }
      listMedians[label] = median(times)
    }

    // What-if (not a goal): the same rows with one file per day instead of per hour, listed in
    // memory (no directory walk), asked the same questions through analyticsSql.
    let whatIf: { medians: Array<number>; pooled: number; agree: number; files: number } | null = null
    if (WHATIF) {
      log("what-if: merging each day into one file")
      const dailyDir = path.join(root, "daily")
      await rm(dailyDir, { recursive: true, force: true })
      await mkdir(dailyDir, { recursive: true })
      const byDay = new Map<string, Array<string>>()
      for (const file of allFiles) {
        const day = /date=(\d{4}-\d{2}-\d{2})/.exec(file)![1]
        byDay.set(day, [...(byDay.get(day) ?? []), file])
      }
      const columns = CLICK_COLUMNS.map(([name]) => name).join(", ")
      const daily: Array<{ day: string; file: string }> = []
      for (const [day, files] of byDay) {
        // In the layout's place for its day, so analyticsSql knows what span it holds.
        const file = path.join(dailyDir, `date=${day}`, "day-whatif.parquet")
        await mkdir(path.dirname(file), { recursive: true })
        await duck.run(`COPY (SELECT ${columns} FROM read_parquet([${files.map(quote).join(", ")}], hive_partitioning = false) ORDER BY workspace_id, link_id, timestamp)
                        TO ${quote(file)} (${PARQUET_FORMAT}, ROW_GROUP_SIZE ${SORTED_ROW_GROUP_SIZE})`)
        daily.push({ day, file })
      }
      const times = QUESTIONS.map(() => [] as Array<number>)
      let agree = 0
      for (let pass = 0; pass <= RUNS; pass++) {
        for (const [i, q] of QUESTIONS.entries()) {
          const f = filters[i]
          const start = performance.now()
          const first = new Date(f.fromMs).toISOString().slice(0, 10)
          const last = new Date(f.toMs).toISOString().slice(0, 10)
          const files = daily.filter((d) => d.day >= first && d.day <= last).map((d) => d.file)
          const question = analyticsSql(files, f, q.groupBy, LIMIT, bucketOf(q))
          const reader = await duck.runAndReadAll(question.text, [...question.params])
          const rows = plain(reader.getRowObjects())
          if (pass > 0) times[i].push(performance.now() - start)
          if (pass === RUNS && sameRows(rows, duckAnswers[i])) agree++
        }
      }
      whatIf = { medians: times.map(median), pooled: median(times.flat()), agree, files: daily.length }
      await rm(dailyDir, { recursive: true, force: true })
    }

    // PostgreSQL with the same rows.
    // Up to here the process only answered questions; exporting the rows for PostgreSQL below
    // takes DuckDB memory control never needs (and RSS does not shrink back).
    const queryRssPeak = Math.max(rssPeak, process.memoryUsage().rss)
    const withPg = spec.clicks <= PG_MAX_CLICKS
    if (!withPg) log(`PostgreSQL baseline skipped above ${PG_MAX_CLICKS} clicks (BENCH_ANALYTICS_PG_MAX_CLICKS)`)
    else log(`PostgreSQL: loading ${spec.clicks} rows`)
    const load = withPg
      ? await loadIntoPostgres(sql, duck, allFiles, path.join(root, "clicks.csv"))
      : { tableBytes: 0, indexBytes: 0, copyS: 0, indexS: 0, rows: 0 }
    if (withPg) log(`PostgreSQL: loaded in ${round(load.copyS)} s, indexed in ${round(load.indexS)} s; ${QUESTIONS.length} questions × (1 warm-up + ${PG_RUNS})`)
    await sql.unsafe(`SET work_mem = '64MB'`)
    const pgTimes = QUESTIONS.map(() => [] as Array<number>)
    const pgAnswers: Array<Array<Record<string, unknown>>> = []
    for (let pass = 0; withPg && pass <= PG_RUNS; pass++) {
      for (const [i, q] of QUESTIONS.entries()) {
        const { text, params } = postgresSql(filters[i], q.groupBy, LIMIT, bucketOf(q))
        const start = performance.now()
        const rows = await sql.unsafe(text, [...params])
        const ms = performance.now() - start
        if (pass > 0) pgTimes[i].push(ms)
        pgAnswers[i] = plain(rows as unknown as Array<Record<string, unknown>>)
      }
    }
    const agree = withPg ? QUESTIONS.map((_, i) => sameRows(duckAnswers[i], pgAnswers[i])) : []

    // Extra: the current hour not yet compacted, as one engine rolling every 2 s leaves it.
    let fresh: { files: number; count24h: number; link7d: number } | null = null
    if (FRESH_FILES > 0) {
      log(`fresh hour: writing ${FRESH_FILES} engine files`)
      const freshStart = spec.endMs
      const dir = path.join(clicksDir, partitionOf(freshStart).dir)
      await mkdir(dir, { recursive: true })
      const perHour = Math.max(1, Math.round(spec.clicks / (spec.days * 24)))
      const perFile = Math.max(1, Math.round(perHour / 1800))
      await duck.run(linksTableSql(spec))
      const columns = CLICK_COLUMNS.map(([name, type]) => `${name}::${type} AS ${name}`).join(", ")
      for (let k = 0; k < FRESH_FILES; k++) {
        const select = hourSelect(spec, { startMs: freshStart, count: perFile, offset: spec.clicks + k * perFile })
        await duck.run(`COPY (SELECT ${columns} FROM (${select})) TO ${quote(path.join(dir, `bench-engine-${1_000_000 + k}.parquet`))} (${PARQUET_FORMAT})`)
      }
      const freshNow = freshStart + HOUR - 1
      const timed = async (q: Question) => {
        const f = filterOf(q, freshNow, workspace, link)
        const times: Array<number> = []
        for (let pass = 0; pass <= RUNS; pass++) {
          const start = performance.now()
          await askDuckDb(duck, clicksDir, f, q)
          if (pass > 0) times.push(performance.now() - start)
        }
        return median(times)
      }
      fresh = { files: FRESH_FILES, count24h: await timed(QUESTIONS[0]), link7d: await timed(QUESTIONS[7]) }
      await rm(dir, { recursive: true, force: true })
    }

    const duckMedians = duckTimes.map(median)
    const pgMedians = pgTimes.map(median)
    const pooledDuck = median(duckTimes.flat())
    const pooledPg = median(pgTimes.flat())
    const linkIndexes = QUESTIONS.flatMap((q, i) => (q.link ? [i] : []))
    const slowestLink = Math.max(...linkIndexes.map((i) => duckMedians[i]))
    const ratio = pooledPg / pooledDuck
    const perQueryRatios = QUESTIONS.map((_, i) => pgMedians[i] / duckMedians[i])

    const figures: Record<string, number | string> = {}
    const baseline: Record<string, number | string> = {}
    const ratios: Record<string, number> = {}
    for (const [i, q] of QUESTIONS.entries()) {
      figures[`${q.name} p50 ms`] = round(duckMedians[i])
      figures[`${q.name} p95 ms`] = round(quantile(duckTimes[i], 0.95))
      baseline[`${q.name} p50 ms`] = round(pgMedians[i])
      baseline[`${q.name} p95 ms`] = round(quantile(pgTimes[i], 0.95))
      ratios[`${q.name}: PostgreSQL / DuckDB (p50)`] = round(perQueryRatios[i], 2)
    }
    figures["median query ms (all runs of all ten)"] = round(pooledDuck)
    baseline["median query ms (all runs of all ten)"] = round(pooledPg)
    ratios["median query: PostgreSQL / DuckDB"] = round(ratio, 2)
    ratios["slowest question's ratio"] = round(Math.min(...perQueryRatios), 2)
    figures["top_links follow-up when all 100 top links were deleted (recordedLinksSql; the route runs it for deleted links only) p50 ms"] = round(median(recordedTimes))
    for (const [label] of listIntervals) figures[`of which listClickFiles, ${label} window, p50 ms`] = round(listMedians[label])
    figures["files read: 24h / 7d / 30d / 90d"] = `${filesRead[0]} / ${filesRead[5]} / ${filesRead[1]} / ${filesRead[6]}`
    figures["clicks"] = spec.clicks
    figures["links"] = spec.links
    figures["Parquet files"] = allFiles.length
    figures["Parquet MB"] = round(dataBytes / 2 ** 20)
    figures["Parquet bytes/click"] = round(dataBytes / spec.clicks)
    if (generatedS !== null) figures["generation s"] = round(generatedS)
    figures["answers identical to PostgreSQL"] = `${agree.filter(Boolean).length}/${agree.length}`
    if (whatIf !== null) {
      figures["what-if one file per day: median query ms"] = round(whatIf.pooled)
      figures["what-if one file per day: p50 ms per question"] = whatIf.medians.map((m) => round(m)).join(" / ")
      figures["what-if one file per day: answers identical"] = `${whatIf.agree}/${QUESTIONS.length}`
    }
    if (fresh !== null) {
      figures[`workspace count 24h with ${fresh.files} uncompacted engine files in the current hour p50 ms`] = round(fresh.count24h)
      figures[`one link timeseries 7d with ${fresh.files} uncompacted engine files p50 ms`] = round(fresh.link7d)
    }
    baseline["PostgreSQL table MB"] = round(load.tableBytes / 2 ** 20)
    baseline["PostgreSQL indexes MB"] = round(load.indexBytes / 2 ** 20)
    baseline["PostgreSQL COPY s"] = round(load.copyS)
    baseline["PostgreSQL index + VACUUM ANALYZE s"] = round(load.indexS)
    baseline["rows loaded"] = load.rows

    const disagreements = withPg ? QUESTIONS.filter((_, i) => !agree[i]).map((q) => q.name) : []
    const [pgVersion] = await sql.unsafe(`SELECT current_setting('server_version') AS v, current_setting('shared_buffers') AS sb`)
    clearInterval(sampler)
    figures["peak RSS MB (query process: DuckDB, lister, rollup finder)"] = round(queryRssPeak / 2 ** 20, 0)
    if (withPg) figures["peak RSS MB of the bench process, with the export for PostgreSQL"] = round(rssPeak / 2 ** 20, 0)
    figures["rollup MB"] = round((await rollupBytes(clicksDir)) / 2 ** 20)
    if (!withPg) {
      for (const key of Object.keys(baseline)) delete baseline[key]
      for (const key of Object.keys(ratios)) delete ratios[key]
      delete figures["answers identical to PostgreSQL"]
    }
    return {
      size,
      p95: duckTimes.map((times) => quantile(times, 0.95)),
      rssPeak: queryRssPeak,
      ratio: withPg ? ratio : null,
      agreeing: withPg ? agree.filter(Boolean).length : null,
      figures,
      baseline,
      ratios,
      notes: [
        `Data: ${spec.clicks} clicks over ${spec.days} days ending ${new Date(spec.endMs).toISOString()} across ${spec.links} links, written by DuckDB SQL (bench/lib/analyticsData.ts) straight to Parquet in control's compacted layout: per hour one merged-*.parquet (${PARQUET_FORMAT}, ORDER BY workspace_id, link_id, timestamp, ROW_GROUP_SIZE ${SORTED_ROW_GROUP_SIZE}) and a _manifest.json {"merged": [name], "replaced": []}, then control's compactClicks merges every finished day into one file under a _day.json, as it does in production. Columns are exactly CLICK_COLUMNS.`,
        `Distributions (deterministic, from DuckDB hash() of the click's index): clicks per hour grow 0.6→1.4 over the period with a daily cycle (peak 15:00 UTC), quieter weekends, two 3× campaign days and ±10% noise; link popularity Zipf (s≈1: rank = floor((links+1)^u) − 1, permuted over links); ${WORKSPACES.length} workspaces holding ${WORKSPACES.map((w) => `${Math.round(w.share * 100)}%`).join("/")} of the links; 22 countries (US 30%), regions/cities for US/DE/GB; 13 device/browser/OS combinations; 14 referer hosts (40% direct); UTM source/medium/campaign on every other link's destination; ~10% agents (ChatGPT-User/Claude-User/Perplexity-User, no referer); 5% with an A/B variant; a visitor hash shared by runs of 3 clicks.`,
        `Queries: analyticsSql over listClickFiles (the same code path as GET /v1/analytics, without HTTP, PostgreSQL filter resolution or JSON), on an in-process DuckDB with 2 threads as ClickStore opens it; timed from listing the files to the rows in JavaScript. Workspace questions ask the big workspace (~70% of clicks); the link questions its most clicked link (worst case). Windows are analyticsWindow(interval, "pro", now) with one fixed now for all runs. ${RUNS} timed runs per question after a warm-up pass, questions interleaved; p95 is interpolated (with ${RUNS} runs it is close to the maximum).`,
        `Baseline: PostgreSQL ${pgVersion.v} (shared_buffers ${pgVersion.sb}, server defaults; work_mem 64MB for the session) on the same machine, a fresh database (createBenchDatabase, as test/support's createTestDatabase), one clicks table loaded from the same Parquet rows (DuckDB → CSV → COPY FROM STDIN), indexes on (workspace_id, timestamp) and (link_id, timestamp) as Shlink/Kutt/YOURLS visit tables have, VACUUM ANALYZE; the same WHERE clause (whereClause) and GROUP BY per question, ${PG_RUNS} timed runs after a warm-up. The database is dropped at the end.`,
        `"median query" is the median of all timed runs of all ten questions; the ratio goal divides PostgreSQL's by DuckDB's. Answers are compared row by row (same keys, order and counts).${disagreements.length > 0 ? ` Differing: ${disagreements.join(", ")}.` : ""}`,
        ...(whatIf === null
          ? []
          : [
              `What-if (not a goal): the same rows merged into one file per day (${whatIf.files} files, same sort and row groups), the files of a window picked in memory instead of listClickFiles, same analyticsSql; p50 per question in the order above. Against the production layout above (a file per finished day, the day so far in one file, live hours as engines wrote them) it shows what the remaining hour files and listing cost.`
            ]),
        ...(fresh === null
          ? []
          : [
              `Extra (not a goal): the current hour as it looks before compaction — ${fresh.files} small engine files (one engine rolling every 2 s for ${Math.round((fresh.files * 2) / 60)} min), ~${Math.max(1, Math.round(spec.clicks / (spec.days * 24) / 1800))} clicks each — added next to the merged hours, then the 24h count and the link's 7d timeseries asked again.`
            ])
      ]
    }
  } finally {
    await scope.close()
  }
}
