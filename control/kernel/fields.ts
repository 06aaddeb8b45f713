import { Schema, SchemaTransformation } from "effect"

/**
 * Field schemas shared by several resources. Bounds the spec leaves open are chosen here and
 * documented in docs/api.md (Bounds).
 */

export const MAX_URL_LENGTH = 8192

const isHttpUrl = (value: string): boolean => {
  // Control characters are dropped by URL parsers but would reach a Location header raw.
  if (!/^https?:\/\//i.test(value) || /[\u0000-\u001f\u007f]/.test(value)) return false
  try {
    const url = new URL(value)
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== ""
  } catch {
    return false
  }
}

/**
 * A destination: an absolute http(s) URL, stored without the whitespace around it. Other schemes
 * (javascript:, data:, …) are refused.
 */
export const HttpUrl = Schema.String.check(Schema.isMaxLength(MAX_URL_LENGTH)).annotate({ format: "uri" }).pipe(
  Schema.decode(SchemaTransformation.trim())
).check(
  Schema.makeFilter((s: string) => isHttpUrl(s) || "Expected an absolute http or https URL", {
    expected: "an absolute http or https URL"
  })
)

/** `""` (clears the field) or an HttpUrl, trimmed alike. */
export const EmptyOrHttpUrl = Schema.String.check(Schema.isMaxLength(MAX_URL_LENGTH)).annotate({ format: "uri" }).pipe(
  Schema.decode(SchemaTransformation.trim())
).check(
  Schema.makeFilter((s: string) => s === "" || isHttpUrl(s) || "Expected an empty string or an absolute http or https URL", {
    expected: "an empty string or an absolute http or https URL"
  })
)

const UTC_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?Z$/

const isRealUtcDateTime = (s: string): boolean => {
  const m = UTC_DATE_TIME.exec(s)
  if (m === null) return false
  const [, y, mo, d, h, mi, sec] = m.map(Number)
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, sec))
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d &&
    date.getUTCHours() === h && date.getUTCMinutes() === mi && date.getUTCSeconds() === sec
}

/** ISO 8601 date-time in UTC with a trailing `Z` and optional fractional seconds. */
export const UtcDateTime = Schema.String.check(
  Schema.makeFilter((s: string) => isRealUtcDateTime(s) || "Expected a UTC date-time such as 2030-01-31T12:00:00Z", {
    expected: "a UTC date-time such as 2030-01-31T12:00:00Z"
  })
).annotate({ format: "date-time" })

/** Stored timestamps go out as ISO 8601 strings. */
export const toIso = (value: Date | string | null): string | null =>
  value === null ? null : (value instanceof Date ? value : new Date(value)).toISOString()

export const Id = Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(64))

/** The `{id}` of a resource path. */
export const IdParams = Schema.Struct({ id: Id })

export const DeletionResult = Schema.Struct({ id: Schema.String })

/** Splits `a,b` and repeated parameters into one list of non-empty values. */
export const commaList = (value: string | ReadonlyArray<string> | undefined): Array<string> =>
  value === undefined
    ? []
    : (typeof value === "string" ? [value] : value).flatMap((v) => v.split(",")).map((v) => v.trim()).filter((v) => v !== "")
