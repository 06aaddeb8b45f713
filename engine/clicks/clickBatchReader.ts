import type { RawClick } from "../../shared/clicks/click.ts"
import { type ClickBatch, INTERNED_FIELDS, NO_VARIANT } from "../../shared/clicks/writerMessages.ts"

const WIDTH = INTERNED_FIELDS.length

/** A click from the table's strings: compiled once from INTERNED_FIELDS, as a hand-written literal would be. */
const clickOf = new Function(
  "NO_VARIANT",
  `return (strings, ids, at, timestamp, variant, ip) => ({ timestamp, variant: variant === NO_VARIANT ? null : variant, ip, ${INTERNED_FIELDS.map((field, f) => `${field}: strings[ids[at + ${f}]]`).join(", ")} })`
)(NO_VARIANT) as (strings: ReadonlyArray<string>, ids: Uint32Array, at: number, timestamp: number, variant: number, ip: string) => RawClick

/**
 * The click writer's side of ClickBatch: the string table the redirect thread's batches extend,
 * and their clicks read back. Every click of a batch gets the table's own string instances, so
 * the memos keyed by user agent, referer or destination hash each string once, not once a click.
 */
export class ClickBatchReader {
  private strings: Array<string> = []

  /**
   * The batch's clicks, or why the whole batch is refused: it extends a table other than this one
   * (a batch before it was refused), or names a string past the table. Either way it cannot say
   * what its clicks were.
   */
  read(batch: ClickBatch): Array<RawClick> | string {
    if (batch.reset) this.strings = []
    if (batch.base !== this.strings.length) return `the batch extends a table of ${batch.base} strings, the writer holds ${this.strings.length}`
    for (const text of batch.strings) this.strings.push(text)
    const { ids, timestamps, variants, ips } = batch
    const known = this.strings.length
    for (let k = 0; k < ids.length; k++) {
      if (ids[k] >= known) return `a click names string ${ids[k]}, the table holds ${known}`
    }
    const clicks = new Array<RawClick>(timestamps.length)
    for (let i = 0; i < timestamps.length; i++) clicks[i] = clickOf(this.strings, ids, i * WIDTH, timestamps[i], variants[i], ips[i])
    return clicks
  }
}
