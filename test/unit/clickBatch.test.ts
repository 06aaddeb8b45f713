import { describe, expect, it } from "vitest"
import { ClickBatchBuilder } from "../../engine/clicks/clickBatchBuilder.ts"
import { ClickBatchReader } from "../../engine/clicks/clickBatchReader.ts"
import type { RawClick } from "../../shared/clicks/click.ts"
import { ClickBatch, INTERNED_FIELDS } from "../../shared/clicks/writerMessages.ts"
import { Schema } from "effect"

/**
 * ClickBatch, the redirect thread's hand-off to the click writer: clicks as typed arrays and ids
 * into a string table each end keeps. What the writer reads back must be the clicks added, in
 * order, whatever the table went through.
 */
const click = (n: number, fields: Partial<RawClick> = {}): RawClick => ({
  timestamp: 1_900_000_000_000 + n,
  workspaceId: "ws_1",
  linkId: `lnk_${n % 3}`,
  domain: "go.example.com",
  slug: `s${n % 3}`,
  url: `https://example.com/${n % 3}`,
  variant: n % 4 === 0 ? null : n % 4,
  ip: `10.0.0.${n % 7}`,
  userAgent: `Agent/${n % 5}`,
  referer: n % 2 === 0 ? "" : "https://t.co/",
  geoHeader: "DE",
  signatureAgent: "",
  ...fields
})
const decode = Schema.decodeUnknownSync(ClickBatch)

describe("ClickBatch builder and reader", () => {
  it("the writer reads back every click as added, each distinct string sent once", () => {
    const builder = new ClickBatchBuilder()
    const reader = new ClickBatchReader()
    const first = Array.from({ length: 300 }, (_, n) => click(n))
    for (const c of first) builder.add(c)
    const batch = decode(builder.take())
    expect(new Set(batch.strings).size).toBe(batch.strings.length)
    expect(reader.read(batch)).toEqual(first)
    // The next batch sends only strings the table does not hold.
    const second = [click(1), click(2, { userAgent: "New/1" })]
    for (const c of second) builder.add(c)
    const next = decode(builder.take())
    expect(next.strings).toEqual(["New/1"])
    expect(reader.read(next)).toEqual(second)
  })

  it("a restarted writer, or one that asked for it, gets the whole table with the next batch", () => {
    const builder = new ClickBatchBuilder()
    builder.add(click(1))
    builder.take()
    builder.writerRestarted()
    builder.add(click(1))
    const batch = builder.take()
    expect(batch.reset).toBe(true)
    expect(new ClickBatchReader().read(batch)).toEqual([click(1)])
  })

  it("past its bound the table starts afresh, and the writer follows", () => {
    const builder = new ClickBatchBuilder()
    const reader = new ClickBatchReader()
    let resets = 0
    for (let round = 0; round < 6; round++) {
      const clicks = Array.from({ length: 20_000 }, (_, n) => click(n, { userAgent: `Agent/${round}/${n}` }))
      for (const c of clicks) builder.add(c)
      const batch = builder.take()
      if (batch.reset) resets++
      expect(reader.read(batch)).toEqual(clicks)
    }
    // The first batch, and the one after the table passed 65,536 strings.
    expect(resets).toBe(2)
  })

  it("refuses a batch that extends another table or names a string the table does not hold", () => {
    const builder = new ClickBatchBuilder()
    const reader = new ClickBatchReader()
    builder.add(click(1))
    builder.take()
    builder.add(click(2, { userAgent: "Lost/1" }))
    expect(reader.read(builder.take())).toMatch(/extends a table of \d+ strings, the writer holds 0/)
    const ids = new Uint32Array(INTERNED_FIELDS.length).fill(5)
    expect(reader.read({ reset: true, base: 0, strings: ["a"], timestamps: new Float64Array([1]), variants: new Int32Array([-1]), ips: ["1.1.1.1"], ids }))
      .toMatch(/names string 5, the table holds 1/)
  })

  it("the Schema refuses arrays of different click counts", () => {
    const ids = new Uint32Array(INTERNED_FIELDS.length)
    const batch = { reset: true, base: 0, strings: ["a"], timestamps: new Float64Array([1]), variants: new Int32Array([-1]), ips: ["1.1.1.1"], ids }
    expect(() => decode(batch)).not.toThrow()
    expect(() => decode({ ...batch, ips: [] })).toThrow()
    expect(() => decode({ ...batch, ids: new Uint32Array(1) })).toThrow()
    expect(() => decode({ ...batch, timestamps: new Float64Array([Number.NaN]) })).toThrow()
  })
})
