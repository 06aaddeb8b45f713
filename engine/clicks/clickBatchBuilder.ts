import type { RawClick } from "../../shared/clicks/click.ts"
import { type ClickBatch, INTERNED_FIELDS, NO_VARIANT, type RawClickColumns } from "../../shared/clicks/writerMessages.ts"

const WIDTH = INTERNED_FIELDS.length
const FIRST_CAPACITY = 256
/**
 * Bounds of the string table: past either, it is started afresh after the batch being taken (a
 * client cycling user agents must not grow it without bound; the hot set is sent again once).
 */
const MAX_STRINGS = 65_536
const MAX_CHARS = 8 * 1024 * 1024

/**
 * A click's string fields as table ids: compiled once from INTERNED_FIELDS, as a hand-written
 * list would be. Each field first compares with the same field of the click before (`last`): a
 * string compare costs less than hashing a header string uWS.js made afresh, and under load
 * consecutive clicks mostly share their user agent, address and host.
 */
const internClick = new Function(
  `return (batch, last, lastIds, ids, at, click) => { let text; ${INTERNED_FIELDS.map((field, f) =>
    `text = click.${field}; ids[at + ${f}] = text === last[${f}] ? lastIds[${f}] : batch.internAs(${f}, text);`).join(" ")} }`
)() as (batch: ClickBatchBuilder, last: Array<string | undefined>, lastIds: Uint32Array, ids: Uint32Array, at: number, click: RawClick) => void

const internColumns = new Function(
  `return (batch, last, lastIds, ids, at, columns, i) => { let text; ${INTERNED_FIELDS.map((field, f) =>
    `text = columns.${field}[i]; ids[at + ${f}] = text === last[${f}] ? lastIds[${f}] : batch.internAs(${f}, text);`).join(" ")} }`
)() as (batch: ClickBatchBuilder, last: Array<string | undefined>, lastIds: Uint32Array, ids: Uint32Array, at: number, columns: RawClickColumns, i: number) => void

/**
 * The redirect thread's side of a ClickBatch (shared/clicks/writerMessages.ts): clicks gathered
 * in typed arrays, their strings interned in a table whose new entries go with the next batch.
 * Strings the redirect path holds already (a link's ids, a destination) hash once; the request's
 * own header strings cost a hash and a lookup, less than cloning them a click at a time.
 */
export class ClickBatchBuilder {
  private readonly table = new Map<string, number>()
  private strings: Array<string> = []
  private chars = 0
  /** Strings the writer has been sent (the rest go with the next batch). */
  private sent = 0
  /** The writer must forget its table before the next batch (a new table, or a new writer). */
  private reset = true
  private count = 0
  /** Each interned field's string in the click before, and its id. */
  private readonly last = new Array<string | undefined>(WIDTH).fill(undefined)
  private readonly lastIds = new Uint32Array(WIDTH)
  private timestamps!: Float64Array
  private variants!: Int32Array
  private ids!: Uint32Array
  private ips: Array<string> = []

  constructor() {
    this.allocate(FIRST_CAPACITY)
  }

  /** Clicks gathered since the last take(). */
  get size(): number {
    return this.count
  }

  add(click: RawClick): void {
    const at = this.slot()
    this.timestamps[at] = click.timestamp
    this.variants[at] = click.variant ?? NO_VARIANT
    this.ips.push(click.ip)
    internClick(this, this.last, this.lastIds, this.ids, at * WIDTH, click)
  }

  /** Click `i` of a batch in columns (an HTTP worker's). */
  addFromColumns(columns: RawClickColumns, i: number): void {
    const at = this.slot()
    this.timestamps[at] = columns.timestamp[i]
    this.variants[at] = columns.variant[i] ?? NO_VARIANT
    this.ips.push(columns.ip[i])
    internColumns(this, this.last, this.lastIds, this.ids, at * WIDTH, columns, i)
  }

  /** Field `f`'s string, remembered as that field's last. */
  internAs(f: number, text: string): number {
    const id = this.intern(text)
    this.last[f] = text
    this.lastIds[f] = id
    return id
  }

  intern(text: string): number {
    const known = this.table.get(text)
    if (known !== undefined) return known
    const id = this.strings.length
    this.table.set(text, id)
    this.strings.push(text)
    this.chars += text.length
    return id
  }

  /** The clicks gathered, with the strings the writer does not have yet; gathering starts again. */
  take(): ClickBatch {
    const count = this.count
    const batch: ClickBatch = {
      reset: this.reset,
      base: this.sent,
      strings: this.strings.slice(this.sent),
      timestamps: this.timestamps.slice(0, count),
      variants: this.variants.slice(0, count),
      ips: this.ips,
      ids: this.ids.slice(0, count * WIDTH)
    }
    this.count = 0
    this.ips = []
    // A backlog gathered while a writer restarted does not keep its arrays that large.
    if (this.timestamps.length > FIRST_CAPACITY * 16) this.allocate(FIRST_CAPACITY)
    this.reset = false
    this.sent = this.strings.length
    if (this.strings.length > MAX_STRINGS || this.chars > MAX_CHARS) {
      this.table.clear()
      this.last.fill(undefined)
      this.strings = []
      this.chars = 0
      this.sent = 0
      this.reset = true
    }
    return batch
  }

  /** A new writer holds no strings (or one refused a batch and lost track): the next batch carries the whole table. */
  writerRestarted(): void {
    this.sent = 0
    this.reset = true
  }

  private slot(): number {
    const at = this.count
    if (at === this.timestamps.length) this.grow()
    this.count = at + 1
    return at
  }

  private grow(): void {
    const { timestamps, variants, ids } = this
    this.allocate(timestamps.length * 2)
    this.timestamps.set(timestamps)
    this.variants.set(variants)
    this.ids.set(ids)
  }

  private allocate(capacity: number): void {
    this.timestamps = new Float64Array(capacity)
    this.variants = new Int32Array(capacity)
    this.ids = new Uint32Array(capacity * WIDTH)
  }
}
