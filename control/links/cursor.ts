import { textProblem } from "../kernel/nul.ts"

/**
 * The listing cursor: base64url of `[createdKey, id]`, where createdKey is `created_at::text` of
 * the page's last link (microseconds kept, which a JavaScript Date would drop). A cursor is
 * opaque to clients, but anyone can forge one, so decoding accepts only a time PostgreSQL's
 * timestamptz input takes (the listing query casts it) and an id it can compare: a forged cursor
 * is a 422, never a database error.
 */

export interface Cursor {
  readonly createdKey: string
  readonly id: string
}

export const encodeCursor = (row: { readonly created_key: string; readonly id: string }): string =>
  Buffer.from(JSON.stringify([row.created_key, row.id])).toString("base64url")

/** created_at as PostgreSQL prints a timestamptz: `2026-01-31 12:00:00.123456+00`, or `+05:30`, `-09:30:15`. */
const CREATED_KEY = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.\d{1,6})?[+-](\d{2})(?::(\d{2})(?::(\d{2}))?)?$/

/** PostgreSQL refuses offsets of 16 hours or more ("time zone displacement out of range"). */
const MAX_OFFSET_HOURS = 15

const MAX_ID_LENGTH = 64

/** A real date and time of years 1 to 9999 with an offset PostgreSQL accepts. */
export const isCreatedKey = (text: string): boolean => {
  const m = CREATED_KEY.exec(text)
  if (m === null) return false
  const [y, mo, d, h, mi, s, oh, om, os] = m.slice(1, 10).map((part) => Number(part ?? 0))
  if (y < 1 || h > 23 || mi > 59 || s > 59 || oh > MAX_OFFSET_HOURS || om > 59 || os > 59) return false
  const date = new Date(0)
  // setUTCFullYear, not Date.UTC: Date.UTC reads the years 0 to 99 as 1900 to 1999.
  date.setUTCFullYear(y, mo - 1, d)
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d
}

/** The cursor's position, or undefined for anything this API could not have issued. */
export const decodeCursor = (cursor: string): Cursor | undefined => {
  let value: unknown
  try {
    value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"))
  } catch {
    return undefined
  }
  if (!Array.isArray(value) || value.length !== 2 || typeof value[0] !== "string" || typeof value[1] !== "string") return undefined
  const [createdKey, id] = value
  if (!isCreatedKey(createdKey) || id === "" || id.length > MAX_ID_LENGTH || textProblem(id) !== undefined) return undefined
  return { createdKey, id }
}
