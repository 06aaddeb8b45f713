import { readdir, readFile } from "node:fs/promises"
import * as path from "node:path"

/**
 * Which Parquet files hold an hour's clicks. Engines add `{engine}-{seq}.parquet` files; the
 * compactor merges an hour into `merged-*.parquet` and then atomically replaces the hour's
 * `_manifest.json`, which names the merged file and the files it replaced. Readers take the
 * manifest's merged file plus every engine file it did not replace, so a query sees each click
 * exactly once before, during and after compaction; replaced files are deleted later.
 */
export interface HourManifest {
  readonly merged: ReadonlyArray<string>
  readonly replaced: ReadonlyArray<string>
}

export const MANIFEST = "_manifest.json"
export const isMergedFile = (name: string) => name.startsWith("merged-") && name.endsWith(".parquet")
export const isEngineFile = (name: string) => name.endsWith(".parquet") && !name.startsWith("merged-")

export const readManifest = async (hourDir: string): Promise<HourManifest | null> => {
  try {
    return JSON.parse(await readFile(path.join(hourDir, MANIFEST), "utf8")) as HourManifest
  } catch {
    return null
  }
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

export interface HourDir {
  readonly dir: string
  /** Start of the hour, epoch ms. */
  readonly start: number
}

/**
 * The hour directories overlapping [fromMs, toMs]: partition pruning by date and hour happens
 * here, before DuckDB is asked anything.
 */
export const listHourDirs = async (clicksDir: string, fromMs: number, toMs: number): Promise<Array<HourDir>> => {
  const firstDay = new Date(fromMs).toISOString().slice(0, 10)
  const lastDay = new Date(toMs).toISOString().slice(0, 10)
  let days: Array<string>
  try {
    days = await readdir(clicksDir)
  } catch {
    return []
  }
  const hours: Array<HourDir> = []
  for (const day of days) {
    const date = DATE_DIR.exec(day)?.[1]
    if (date === undefined || date < firstDay || date > lastDay) continue
    let entries: Array<string>
    try {
      entries = await readdir(path.join(clicksDir, day))
    } catch {
      continue
    }
    for (const entry of entries) {
      const hour = HOUR_DIR.exec(entry)?.[1]
      if (hour === undefined) continue
      const start = Date.parse(`${date}T${hour}:00:00Z`)
      if (start + 3_600_000 <= fromMs || start > toMs) continue
      hours.push({ dir: path.join(clicksDir, day, entry), start })
    }
  }
  return hours.sort((a, b) => a.start - b.start)
}

/** Every file a query over [fromMs, toMs] must read. */
export const listClickFiles = async (clicksDir: string, fromMs: number, toMs: number): Promise<Array<string>> => {
  const files: Array<string> = []
  for (const hour of await listHourDirs(clicksDir, fromMs, toMs)) {
    let entries: Array<string>
    try {
      entries = await readdir(hour.dir)
    } catch {
      continue
    }
    const manifest = entries.includes(MANIFEST) ? await readManifest(hour.dir) : null
    for (const name of hourView(entries, manifest)) files.push(path.join(hour.dir, name))
  }
  return files
}
