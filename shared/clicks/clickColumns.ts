import { Schema } from "effect"
import { type ClickColumnType, ClickRecord } from "./click.ts"

export interface ClickColumn {
  /** The ClickRecord field. */
  readonly field: keyof ClickRecord
  /** The column's name in the click files: the field in snake_case. */
  readonly name: string
  readonly type: ClickColumnType
}

const snakeCase = (field: string) => field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)

/** The click files' columns, derived from the ClickRecord Schema: its fields in order, each with its annotated type. */
export const CLICK_FIELDS: ReadonlyArray<ClickColumn> = Object.entries(ClickRecord.fields).map(([field, schema]) => {
  const type = Schema.resolveAnnotations(schema)?.["clickColumn"] as ClickColumnType | undefined
  if (type === undefined) throw new Error(`ClickRecord.${field} declares no click column type`)
  // Column names go into SQL and field names into the compiled CSV writer (clickCsv.ts) as they are.
  if (!/^[A-Za-z][A-Za-z0-9]*$/.test(field)) throw new Error(`ClickRecord.${field}: a click field name must be a plain identifier`)
  return { field: field as keyof ClickRecord, name: snakeCase(field), type }
})

/**
 * The click files' columns, in order, with their DuckDB types. Every Parquet file Ricochet
 * writes has exactly these, so any reader can union them.
 */
export const CLICK_COLUMNS: ReadonlyArray<readonly [name: string, type: ClickColumnType]> = CLICK_FIELDS.map((c) => [c.name, c.type])

/**
 * A DuckDB select list that reads `fields` of the click files back as ClickRecord's fields, by
 * their names (timestamps as epoch milliseconds, as ClickRecord holds them).
 */
export const selectClickFields = (fields: ReadonlyArray<keyof ClickRecord>): string =>
  fields.map((field) => {
    const column = CLICK_FIELDS.find((c) => c.field === field)
    if (column === undefined) throw new Error(`ClickRecord has no field ${String(field)}`)
    return column.type === "TIMESTAMP" ? `epoch_ms(${column.name}) AS "${field}"` : `${column.name} AS "${field}"`
  }).join(", ")
