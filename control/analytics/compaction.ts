import { readdir, rename, rm, stat, writeFile } from "node:fs/promises"
import * as path from "node:path"
import {
  DAY_MANIFEST,
  type DayManifest,
  dayFiles,
  hourFiles,
  hourView,
  isMergedFile,
  listDateDirs,
  MANIFEST,
  readDayManifest,
  readManifest
} from "../../shared/clicks/files.ts"
import { copyToParquet, quote } from "../../shared/clicks/parquet.ts"
import type { ClickFilePublisher } from "./bucketPublisher.ts"
import { dayFileOfRollup, isRollupFile, rollupOf, writeRollup } from "./rollup.ts"

const HOUR = 3_600_000
const DAY = 24 * HOUR
/** An hour (or day) is merged once it has been over for this long: late engine rolls have landed. */
const SETTLE_MS = 10 * 60_000
/** Replaced files stay this long so queries that listed them just before can still read them. */
const REPLACED_GRACE_MS = 5 * 60_000
const STALE_TEMP_MS = HOUR
/**
 * The day so far is merged into its day file once this many finished hours are waiting: a query
 * over today then reads a few files instead of one per hour, and the day is rewritten about
 * 24 / PARTIAL_DAY_HOURS times before it is over.
 */
const PARTIAL_DAY_HOURS = 4
/**
 * Days merged again in one pass only because their file's rollup is missing or of an earlier
 * layout (after an upgrade, every day kept): a pass stays minutes at most, and the history is
 * brought up to date over the next passes, newest days first.
 */
const ROLLUP_CATCH_UP_DAYS = 30

export interface CompactionResult {
  readonly merged: number
  readonly removed: number
}

const isDayFile = (name: string) => name.startsWith("day-") && name.endsWith(".parquet")

const ageOf = async (file: string, nowMs: number) => nowMs - (await stat(file)).mtimeMs

/**
 * One sorted file from `sources`, written under a temporary name and renamed into place (and put
 * into the click bucket, if there is one: no manifest names it yet, so it counts nowhere before
 * the manifest that does).
 */
const merge = async (run: (sql: string) => Promise<void>, sources: ReadonlyArray<string>, target: string, publisher: ClickFilePublisher | undefined) => {
  // hive_partitioning off: the date=/hour= directory names must not become columns of the file.
  await copyToParquet({ run }, `SELECT * FROM read_parquet([${sources.map(quote).join(", ")}], hive_partitioning = false)`, target, { sort: true })
  await publisher?.put(target)
}

/** A manifest switched atomically; with a click bucket, there first (so no control ever has it before the bucket does). */
const writeAtomically = async (file: string, content: unknown, nowMs: number, publisher: ClickFilePublisher | undefined) => {
  const temporary = `${file}.${nowMs}.tmp`
  try {
    await writeFile(temporary, JSON.stringify(content))
    await publisher?.put(temporary, file)
    await rename(temporary, file)
  } finally {
    await rm(temporary, { force: true })
  }
}

/**
 * Merges each finished hour's files into one, and each finished day's into one (the day so far
 * too, a few settled hours at a time) with its hourly rollup beside it (see rollup.ts), sorted by
 * (workspace, link, timestamp) so a query touches one file per day and skips the row groups of
 * other workspaces and links. The switch is always the atomic rename of a manifest (see
 * shared/clicks/files.ts); files a manifest replaced are deleted on a later pass, after a grace
 * period. Also removes leftovers of interrupted writes.
 */
export const compactClicks = async (
  clicksDir: string,
  run: (sql: string) => Promise<void>,
  nowMs: number,
  options: {
    readonly settleMs?: number
    readonly graceMs?: number
    readonly rollupCatchUpDays?: number
    /** The click bucket transport: what the pass writes and removes goes through the bucket first (bucketPublisher.ts). */
    readonly publisher?: ClickFilePublisher
  } = {}
): Promise<CompactionResult> => {
  const publisher = options.publisher
  const settle = options.settleMs ?? SETTLE_MS
  const grace = options.graceMs ?? REPLACED_GRACE_MS
  let catchUps = options.rollupCatchUpDays ?? ROLLUP_CATCH_UP_DAYS
  let merged = 0
  let removed = 0
  const remove = async (file: string) => {
    // From the bucket first: removed here only, every mirror would still count it.
    await publisher?.remove(file)
    await rm(file, { force: true })
    removed++
  }
  /** Over, and late engine rolls into it have landed. */
  const hourSettled = (date: string, hourName: string) => Date.parse(`${date}T${hourName.slice(5)}:00:00Z`) + HOUR + settle <= nowMs

  // Newest first: what a dashboard asks about most is caught up first after an upgrade.
  for (const { dir: dateDir, date } of (await listDateDirs(clicksDir, 0, nowMs)).reverse()) {
    const day = await readDayManifest(dateDir)
    const dayAge = day === null ? 0 : await ageOf(path.join(dateDir, DAY_MANIFEST), nowMs)
    const dateEntries = await readdir(dateDir)
    const hourNames = dateEntries.filter((name) => /^hour=\d{2}$/.test(name)).sort()
    const daySettled = Date.parse(`${date}T00:00:00Z`) + DAY + settle <= nowMs

    for (const hourName of hourNames) {
      const hourDir = path.join(dateDir, hourName)
      const entries = await readdir(hourDir)
      const manifest = entries.includes(MANIFEST) ? await readManifest(hourDir) : null
      const view = hourView(entries, manifest)
      const hourAge = manifest === null ? 0 : await ageOf(path.join(hourDir, MANIFEST), nowMs)
      const replacedByDay = new Set(day?.replaced[hourName] ?? [])
      for (const name of entries) {
        const full = path.join(hourDir, name)
        const obsolete = name.endsWith(".parquet") &&
          ((!view.includes(name) && hourAge >= grace) || (replacedByDay.has(name) && dayAge >= grace))
        if (obsolete || (name.endsWith(".tmp") && (await ageOf(full, nowMs)) > STALE_TEMP_MS)) await remove(full)
      }
      // A finished day is merged as a whole (no need to merge its hours first); an hour the day
      // file has taken is owned by it, and late files there are merged into the day again.
      if (daySettled || (day !== null && hourName in day.replaced)) continue
      if (!hourSettled(date, hourName)) continue
      if (view.length <= 1 && (view.length === 0 || isMergedFile(view[0]))) continue
      const name = `merged-${nowMs}.parquet`
      await merge(run, view.map((f) => path.join(hourDir, f)), path.join(hourDir, name), publisher)
      const replaced = [...new Set([...(manifest?.replaced ?? []), ...view.filter((f) => !isMergedFile(f))])]
      await writeAtomically(path.join(hourDir, MANIFEST), { merged: [name], replaced }, nowMs, publisher)
      merged++
    }

    for (const name of dateEntries) {
      const full = path.join(dateDir, name)
      const oldDayFile = isDayFile(name) && !(day?.merged ?? []).includes(name) && dayAge >= grace
      // A rollup goes with its day file (also one a crash left before its manifest was written).
      const oldRollup = isRollupFile(name) && !(day?.merged ?? []).includes(dayFileOfRollup(name)) && dayAge >= grace
      if (oldDayFile || oldRollup || (name.endsWith(".tmp") && (await ageOf(full, nowMs)) > STALE_TEMP_MS)) await remove(full)
    }

    // The day so far: only its settled hours, and only once enough of them wait.
    const dayHours = daySettled ? hourNames : hourNames.filter((hourName) => hourSettled(date, hourName))
    const perHour = await Promise.all(dayHours.map((hourName) => hourFiles(path.join(dateDir, hourName), day)))
    const current = await dayFiles(dateDir, day)
    // A day file with no current rollup (written before rollups, or before their daily rows) is
    // merged again for one, within the pass's budget, even when nothing else would merge it. (The
    // listing read above holds it: only rollups of replaced day files were removed since.)
    const catchUp = () => {
      if (current.length !== 1 || catchUps <= 0 || dateEntries.includes(path.basename(rollupOf(current[0])!))) return false
      catchUps--
      return true
    }
    if (daySettled) {
      const pending = perHour.reduce((n, files) => n + files.length, 0)
      if (pending === 0 && current.length <= 1 && !catchUp()) continue
    } else {
      const waiting = dayHours.filter((hourName, i) => perHour[i].length > 0 && !(day !== null && hourName in day.replaced)).length
      if (waiting < PARTIAL_DAY_HOURS && !catchUp()) continue
    }
    const sources = [
      ...current.map((f) => path.join(dateDir, f)),
      ...dayHours.flatMap((hourName, i) => perHour[i].map((f) => path.join(dateDir, hourName, f)))
    ]
    const name = `day-${nowMs}.parquet`
    await merge(run, sources, path.join(dateDir, name), publisher)
    // Before the manifest names the day file: a listed day file always has its rollup.
    await writeRollup({ run }, path.join(dateDir, name))
    await publisher?.put(rollupOf(path.join(dateDir, name))!)
    const replaced: Record<string, ReadonlyArray<string>> = { ...day?.replaced }
    dayHours.forEach((hourName, i) => {
      replaced[hourName] = [...new Set([...(day?.replaced[hourName] ?? []), ...perHour[i]])]
    })
    await writeAtomically(path.join(dateDir, DAY_MANIFEST), { merged: [name], replaced } satisfies DayManifest, nowMs, publisher)
    merged++
  }
  return { merged, removed }
}

/** Removes days older than the longest analytics history any plan has. */
export const applyRetention = async (clicksDir: string, keepDays: number, nowMs: number, publisher?: ClickFilePublisher): Promise<number> => {
  const cutoff = new Date(nowMs - (keepDays + 1) * DAY).toISOString().slice(0, 10)
  let removed = 0
  for (const { dir, date } of await listDateDirs(clicksDir, 0, nowMs)) {
    if (date < cutoff) {
      await publisher?.removeDate(dir)
      await rm(dir, { recursive: true, force: true })
      removed++
    }
  }
  return removed
}
