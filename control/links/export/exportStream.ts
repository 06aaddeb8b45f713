import { Effect, Option, Stream } from "effect"
import type { DatabaseUnavailable } from "../../kernel/DatabaseUnavailable.ts"
import type { Link } from "../schema.ts"
import { csvLine } from "./csv.ts"
import { EXPORT_COLUMNS, exportCells } from "./columns.ts"

/** Links read per query: one batch is all an export holds in memory at a time. */
export const EXPORT_BATCH = 1_000

export interface Batch {
  readonly links: ReadonlyArray<Link>
  readonly nextCursor: string | null
}

const encoder = new TextEncoder()

const chunkOf = (links: ReadonlyArray<Link>, header: boolean): Uint8Array =>
  encoder.encode((header ? csvLine(EXPORT_COLUMNS) : "") + links.map((link) => csvLine(exportCells(link))).join(""))

/**
 * The CSV of every link, batch after batch: the first batch was read before the response
 * started (so an unavailable database is still a 503), each next one is read when the client
 * has taken the previous one, resuming after the previous batch's last link as the listing's
 * cursor does (links created meanwhile do not shift or repeat the ones still to come).
 */
export const exportCsv = (
  first: Batch,
  next: (cursor: string) => Effect.Effect<Batch, DatabaseUnavailable>
): Stream.Stream<Uint8Array, DatabaseUnavailable> =>
  Stream.concat(
    Stream.succeed(chunkOf(first.links, true)),
    Stream.paginate(first.nextCursor, (cursor: string | null) =>
      cursor === null
        ? Effect.succeed([[], Option.none()] as const)
        : Effect.map(next(cursor), (batch) => [[chunkOf(batch.links, false)], Option.fromNullishOr(batch.nextCursor)] as const))
  )
