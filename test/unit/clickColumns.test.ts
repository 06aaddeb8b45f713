import type { DuckDBConnection } from "@duckdb/node-api"
import { Schema } from "effect"
import { writeFile } from "node:fs/promises"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ClickRecord } from "../../shared/clicks/click.ts"
import { CLICK_COLUMNS, CLICK_FIELDS } from "../../shared/clicks/clickColumns.ts"
import { clickLine, encodeClicks, selectClicksCsv, writeClicksParquet } from "../../shared/clicks/clickCsv.ts"
import { openDuckDb, quote } from "../../shared/clicks/parquet.ts"
import { clickFromRow, clickRecord } from "../support/clickRecord.ts"
import { removeDir, tempDir } from "../support/processes.ts"

/**
 * The click files' columns, the spool's CSV and the Parquet schema all derive from the ClickRecord
 * Schema: they must agree with its fields, in order, and the on-disk formats must not change.
 */
describe("click columns derived from the ClickRecord Schema", () => {
  let duck: DuckDBConnection
  let dir: string
  beforeAll(async () => {
    duck = await openDuckDb(1)
    dir = await tempDir("ricochet-click-columns-")
  })
  afterAll(async () => {
    duck?.closeSync()
    await removeDir(dir)
  })

  const full = clickRecord({
    timestamp: Date.parse("2030-06-15T10:20:00.123Z"),
    country: "DE",
    region: "BE",
    city: "Berlin",
    refererHost: "t.co",
    utmSource: 'news "letter", spring',
    utmMedium: "email",
    utmCampaign: "c",
    utmTerm: "t",
    utmContent: "x\ny",
    abVariant: 1
  })

  it("CLICK_COLUMNS are the Schema's fields in order, snake_case, with their types", () => {
    expect(CLICK_FIELDS.map((c) => c.field)).toEqual(Object.keys(ClickRecord.fields))
    expect(CLICK_COLUMNS).toEqual([
      ["timestamp", "TIMESTAMP"], ["workspace_id", "VARCHAR"], ["link_id", "VARCHAR"], ["domain", "VARCHAR"], ["slug", "VARCHAR"],
      ["url", "VARCHAR"], ["audience", "VARCHAR"], ["country", "VARCHAR"], ["region", "VARCHAR"], ["city", "VARCHAR"],
      ["device", "VARCHAR"], ["browser", "VARCHAR"], ["os", "VARCHAR"], ["referer_host", "VARCHAR"], ["utm_source", "VARCHAR"],
      ["utm_medium", "VARCHAR"], ["utm_campaign", "VARCHAR"], ["utm_term", "VARCHAR"], ["utm_content", "VARCHAR"],
      ["ab_variant", "INTEGER"], ["visitor_hash", "VARCHAR"]
    ])
  })

  it("a batch is its clicks' lines byte for byte, whatever they share (the shared part of a line is reused)", () => {
    // One destination visited by many kinds of visitor and place, more than are kept per URL, and
    // fields that differ only in one place each, with quotes and nulls.
    const kinds: Array<Partial<ClickRecord>> = [
      {}, { country: "DE" }, { country: "FR" }, { country: "DE", city: "Berlin" }, { audience: "agent" }, { device: "mobile", os: "iOS" },
      { refererHost: "t.co" }, { utmSource: 'a "quoted", value' }, { utmContent: "x\ny" }, { slug: "two" }, { linkId: "lnk_2" },
      { workspaceId: "ws_b" }, { domain: "other.localhost" }, { region: "BE" }, { browser: "Firefox" }, { utmTerm: "" }
    ]
    const clicks = Array.from({ length: 200 }, (_, i) =>
      clickRecord({ ...kinds[(i * 7) % kinds.length], timestamp: 1_900_000_000_000 + i, abVariant: i % 3 === 0 ? null : i % 3, visitorHash: `h${i}` }))
    const twice = [...clicks, ...clicks.map((c) => ({ ...c, url: "https://example.com/second" })), ...clicks]
    expect(encodeClicks(twice).toString()).toBe(twice.map(clickLine).join(""))
  })

  it("a spool line is byte for byte the format spool segments already on disk hold", () => {
    expect(clickLine(full)).toBe(
      `1907749200123,"ws_a","lnk_1","acme.localhost","one","https://example.com/landing","people","DE","BE","Berlin","desktop","Chrome","Windows","t.co",` +
        `"news ""letter"", spring","email","c","t","x\ny",1,"v"\n`
    )
    expect(clickLine(clickRecord({ timestamp: 5 }))).toBe(
      `5,"ws_a","lnk_1","acme.localhost","one","https://example.com/landing","people",,,,"desktop","Chrome","Windows",,,,,,,,"v"\n`
    )
  })

  it("the CSV DuckDB reads has one column per field, named and typed as CLICK_COLUMNS", async () => {
    const file = path.join(dir, "line.csv")
    await writeFile(file, clickLine(full) + clickLine(clickRecord({ timestamp: 5 })))
    const described = await duck.runAndReadAll(`DESCRIBE ${selectClicksCsv(file)}`)
    expect(described.getRowObjects().map((r) => [r.column_name, r.column_type])).toEqual(CLICK_COLUMNS)
    const rows = await duck.runAndReadAll(`SELECT epoch_ms(timestamp) AS timestamp, * EXCLUDE (timestamp) FROM (${selectClicksCsv(file)})`)
    expect(rows.getRowObjects().map(clickFromRow)).toEqual([full, clickRecord({ timestamp: 5 })])
  })

  it("a Parquet file's schema is CLICK_COLUMNS, and what it gives back decodes as ClickRecord", async () => {
    const target = path.join(dir, "clicks.parquet")
    await writeClicksParquet(duck, [full, clickRecord({ timestamp: 5 })], target)
    const described = await duck.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${quote(target)})`)
    expect(described.getRowObjects().map((r) => [r.column_name, r.column_type])).toEqual(CLICK_COLUMNS)
    const rows = await duck.runAndReadAll(`SELECT epoch_ms(timestamp) AS timestamp, * EXCLUDE (timestamp) FROM read_parquet(${quote(target)}) ORDER BY timestamp`)
    const back = rows.getRowObjects().map(clickFromRow)
    expect(back.map((row) => Schema.decodeUnknownSync(ClickRecord)(row))).toEqual([clickRecord({ timestamp: 5 }), full])
  })
})
