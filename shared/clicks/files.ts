import { readdir, readFile } from "node:fs/promises"
import * as path from "node:path"

/**
 * Which Parquet files hold the clicks. Engines add `{engine}-{seq}.parquet` files to hour
 * directories. The compactor merges a finished hour into `merged-*.parquet` and then atomically
 * replaces the hour's `_manifest.json`, which names the merged file and the files it replaced;
 * it merges the day's settled hours (all of them once the day is over) into `date=…/day-*.parquet`
 * and atomically replaces the day's `_day.json`, which names that file and, per hour, the files
 * it replaced.
 * Readers take the merged files plus every file not replaced, so a query sees each click exactly
 * once before, during and after compaction; replaced files are deleted later.
 */
export interface HourManifest {
  readonly merged: ReadonlyArray<string>
  readonly replaced: ReadonlyArray<string>
}

export const MANIFEST = "_manifest.json"
export const DAY_MANIFEST = "_day.json"

export interface DayManifest {
  readonly merged: ReadonlyArray<string>
  /** Per hour directory name (`hour=HH`), the files the day file replaced. */
  readonly replaced: Readonly<Record<string, ReadonlyArray<string>>>
}
export const isMergedFile = (name: string) => name.startsWith("merged-") && name.endsWith(".parquet")
export const isEngineFile = (name: string) => name.endsWith(".parquet") && !name.startsWith("merged-")

const readJson = async <T>(file: string): Promise<T | null> => {
  let text: string
  try {
    text = await readFile(file, "utf8")
  } catch (error) {
    // Only "not there" means no manifest: any other failure must not silently double-count.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null
    throw error
  }
  return JSON.parse(text) as T
}

export const readManifest = (hourDir: string): Promise<HourManifest | null> => readJson(path.join(hourDir, MANIFEST))
export const readDayManifest = (dateDir: string): Promise<DayManifest | null> => readJson(path.join(dateDir, DAY_MANIFEST))

/** Runs `task` over `items` with at most `limit` at once (file handles are finite). */
export const mapLimit = async <T, R>(items: ReadonlyArray<T>, limit: number, task: (item: T) => Promise<R>): Promise<Array<R>> => {
  const results = new Array<R>(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const i = next++
      results[i] = await task(items[i])
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}

/** The files of one hour directory that together hold its clicks exactly once. */
export const hourView = (entries: ReadonlyArray<string>, manifest: HourManifest | null): Array<string> => {
  const replaced = new Set(manifest?.replaced ?? [])
  const present = new Set(entries)
  const merged = (manifest?.merged ?? []).filter((name) => present.has(name))
  return [...merged, ...entries.filter((name) => isEngineFile(name) && !replaced.has(name))]
}

const DATE_DIR = /^date=(\d{4}-\d{2}-\d{2})$/
const HOUR_DIR = /^hour=(\d{2})$/

/**
 * The span of time [start, end) a click file can hold, read from its place in the layout: a file
 * in `date=…/hour=HH/` holds that hour, one directly in `date=…/` (a day file) that day. Null for
 * a file elsewhere.
 */
export const fileSpan = (file: string): { readonly start: number; readonly end: number } | null => {
  const parent = path.basename(path.dirname(file))
  const hour = HOUR_DIR.exec(parent)?.[1]
  if (hour !== undefined) {
    const date = DATE_DIR.exec(path.basename(path.dirname(path.dirname(file))))?.[1]
    if (date === undefined) return null
    const start = Date.parse(`${date}T${hour}:00:00Z`)
    return { start, end: start + 3_600_000 }
  }
  const date = DATE_DIR.exec(parent)?.[1]
  if (date === undefined) return null
  const start = Date.parse(`${date}T00:00:00Z`)
  return { start, end: start + 86_400_000 }
}

export interface HourDir {
  readonly dir: string
  /** Start of the hour, epoch ms. */
  readonly start: number
}

/** The date directories overlapping [fromMs, toMs], oldest first. */
export const listDateDirs = async (clicksDir: string, fromMs: number, toMs: number): Promise<Array<{ dir: string; date: string }>> => {
  const firstDay = new Date(fromMs).toISOString().slice(0, 10)
  const lastDay = new Date(toMs).toISOString().slice(0, 10)
  let days: Array<string>
  try {
    days = await readdir(clicksDir)
  } catch {
    return []
  }
  return days
    .map((name) => ({ name, date: DATE_DIR.exec(name)?.[1] }))
    .filter((d): d is { name: string; date: string } => d.date !== undefined && d.date >= firstDay && d.date <= lastDay)
    .sort((a, b) => a.date.localeCompare(b.date))
    .map((d) => ({ dir: path.join(clicksDir, d.name), date: d.date }))
}

/**
 * The hour directories overlapping [fromMs, toMs]: partition pruning by date and hour happens
 * here, before DuckDB is asked anything.
 */
export const listHourDirs = async (clicksDir: string, fromMs: number, toMs: number): Promise<Array<HourDir>> => {
  const dates = await listDateDirs(clicksDir, fromMs, toMs)
  const perDate = await mapLimit(dates, 16, async ({ dir, date }) => {
    const entries = await readdir(dir).catch(() => [] as Array<string>)
    const hours: Array<HourDir> = []
    for (const entry of entries) {
      const hour = HOUR_DIR.exec(entry)?.[1]
      if (hour === undefined) continue
      const start = Date.parse(`${date}T${hour}:00:00Z`)
      if (start + 3_600_000 <= fromMs || start > toMs) continue
      hours.push({ dir: path.join(dir, entry), start })
    }
    return hours
  })
  return perDate.flat().sort((a, b) => a.start - b.start)
}

/** The files of one hour directory once a day file may have replaced some of them. */
export const hourFiles = async (hourDir: string, day: DayManifest | null): Promise<Array<string>> => {
  let entries: Array<string>
  try {
    entries = await readdir(hourDir)
  } catch {
    return []
  }
  const manifest = entries.includes(MANIFEST) ? await readManifest(hourDir) : null
  const replacedByDay = new Set(day?.replaced[path.basename(hourDir)] ?? [])
  return hourView(entries, manifest).filter((name) => !replacedByDay.has(name))
}

/** The day files of a date directory that its manifest names and that are present. */
export const dayFiles = async (dateDir: string, day: DayManifest | null): Promise<Array<string>> => {
  if (day === null) return []
  const entries = new Set(await readdir(dateDir).catch(() => [] as Array<string>))
  return day.merged.filter((name) => entries.has(name))
}

/** Every file a query over [fromMs, toMs] must read; directories are read concurrently. */
export const listClickFiles = async (clicksDir: string, fromMs: number, toMs: number): Promise<Array<string>> => {
  const dates = (await listDateDirs(clicksDir, fromMs, toMs)).map((d) => d.dir)
  const manifests = new Map<string, DayManifest | null>()
  await mapLimit(dates, 16, async (dateDir) => manifests.set(dateDir, await readDayManifest(dateDir)))
  const files: Array<string> = []
  for (const dateDir of dates) {
    for (const name of await dayFiles(dateDir, manifests.get(dateDir)!)) files.push(path.join(dateDir, name))
  }
  const hours = await listHourDirs(clicksDir, fromMs, toMs)
  const perHour = await mapLimit(hours, 32, (hour) => hourFiles(hour.dir, manifests.get(path.dirname(hour.dir))!))
  hours.forEach((hour, i) => {
    for (const name of perHour[i]) files.push(path.join(hour.dir, name))
  })
  return files
}

/**
 * listClickFiles with the file lists of past days remembered for `pastDayTtlMs`. Past days
 * change only by compaction (whose replaced files stay readable for minutes, longer than the
 * TTL) and by rare late rolls (which then show within the TTL); today is always listed afresh.
 * A 90-day question then lists one day of directories instead of ninety.
 */
export const cachedFileLister = (clicksDir: string, pastDayTtlMs = 30_000) => {
  const days = new Map<string, { files: Array<string>; until: number }>()
  const DAY_MS = 86_400_000
  return async (fromMs: number, toMs: number, nowMs = Date.now()): Promise<Array<string>> => {
    const today = new Date(nowMs).toISOString().slice(0, 10)
    const files: Array<string> = []
    const dates = await listDateDirs(clicksDir, fromMs, toMs)
    await mapLimit(dates, 16, async ({ date }) => {
      const dayStart = Date.parse(`${date}T00:00:00Z`)
      const whole = fromMs <= dayStart && toMs >= dayStart + DAY_MS - 1
      // Only days well over: clicks near midnight may still be rolling into the day that just ended.
      if (date < today && whole && nowMs > dayStart + DAY_MS + 3_600_000) {
        const cached = days.get(date)
        if (cached !== undefined && cached.until > nowMs) return void files.push(...cached.files)
        const listed = await listClickFiles(clicksDir, dayStart, dayStart + DAY_MS - 1)
        days.set(date, { files: listed, until: nowMs + pastDayTtlMs })
        return void files.push(...listed)
      }
      files.push(...(await listClickFiles(clicksDir, Math.max(fromMs, dayStart), Math.min(toMs, dayStart + DAY_MS - 1))))
    })
    for (const date of days.keys()) if (days.get(date)!.until <= nowMs) days.delete(date)
    return files.sort()
  }
}
