import { readdir, rename, rm, stat, writeFile } from "node:fs/promises"
import * as path from "node:path"
import { hourView, isMergedFile, listHourDirs, MANIFEST, readManifest } from "../../shared/clicks/files.ts"
import { quote } from "../../shared/clicks/parquet.ts"

const HOUR = 3_600_000
/** An hour is merged once it has been over for this long: late engine rolls have landed. */
const SETTLE_MS = 10 * 60_000
/** Replaced files stay this long so queries that listed them just before can still read them. */
const REPLACED_GRACE_MS = 5 * 60_000
const STALE_TEMP_MS = HOUR

export interface CompactionResult {
  readonly merged: number
  readonly removed: number
}

/**
 * Merges each finished hour's files into one, sorted by (workspace, link, timestamp) so a query
 * touches one file per hour and skips row groups of other workspaces and links. The switch is the
 * atomic rename of the hour's manifest (see shared/clicks/files.ts); files it replaced are
 * deleted on a later pass. Also removes leftovers of interrupted writes.
 */
export const compactClicks = async (
  clicksDir: string,
  run: (sql: string) => Promise<void>,
  nowMs: number,
  options: { readonly settleMs?: number; readonly graceMs?: number } = {}
): Promise<CompactionResult> => {
  const settle = options.settleMs ?? SETTLE_MS
  const grace = options.graceMs ?? REPLACED_GRACE_MS
  let merged = 0
  let removed = 0
  for (const hour of await listHourDirs(clicksDir, 0, nowMs)) {
    const entries = await readdir(hour.dir)
    const manifest = entries.includes(MANIFEST) ? await readManifest(hour.dir) : null
    const view = hourView(entries, manifest)

    // Files the current manifest has replaced (or older merges), once nobody can still be reading them.
    const manifestAge = manifest === null ? 0 : nowMs - (await stat(path.join(hour.dir, MANIFEST))).mtimeMs
    for (const name of entries) {
      const full = path.join(hour.dir, name)
      const obsolete = !view.includes(name) && (name.endsWith(".parquet")) && manifestAge >= grace
      const staleTemp = name.endsWith(".tmp") && nowMs - (await stat(full)).mtimeMs > STALE_TEMP_MS
      if (obsolete || staleTemp) {
        await rm(full, { force: true })
        removed++
      }
    }

    if (hour.start + HOUR + settle > nowMs) continue
    if (view.length <= 1 && (view.length === 0 || isMergedFile(view[0]))) continue
    const name = `merged-${nowMs}.parquet`
    const target = path.join(hour.dir, name)
    const temporary = `${target}.tmp`
    await run(`COPY (SELECT * FROM read_parquet([${view.map((f) => quote(path.join(hour.dir, f))).join(", ")}])
               ORDER BY workspace_id, link_id, timestamp)
               TO ${quote(temporary)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 100000)`)
    await rename(temporary, target)
    const replaced = [...new Set([...(manifest?.replaced ?? []), ...view.filter((f) => !isMergedFile(f))])]
    const manifestTemp = path.join(hour.dir, `${MANIFEST}.${nowMs}.tmp`)
    await writeFile(manifestTemp, JSON.stringify({ merged: [name], replaced }))
    await rename(manifestTemp, path.join(hour.dir, MANIFEST))
    merged++
  }
  return { merged, removed }
}

/** Removes days older than the longest analytics history any plan has. */
export const applyRetention = async (clicksDir: string, keepDays: number, nowMs: number): Promise<number> => {
  const cutoff = new Date(nowMs - (keepDays + 1) * 24 * HOUR).toISOString().slice(0, 10)
  let removed = 0
  let days: Array<string>
  try {
    days = await readdir(clicksDir)
  } catch {
    return 0
  }
  for (const day of days) {
    const date = /^date=(\d{4}-\d{2}-\d{2})$/.exec(day)?.[1]
    if (date !== undefined && date < cutoff) {
      await rm(path.join(clicksDir, day), { recursive: true, force: true })
      removed++
    }
  }
  return removed
}
