/**
 * One log line, as control and the engine write them: JSON (one object a line, for a collector)
 * or a human format (a terminal). Pure: the console and Effect loggers (installLogging.ts) call it.
 * Nothing secret is ever written: fields named like a secret are replaced, and strings are
 * scrubbed of API keys, session cookies, bearer tokens and password parameters, wherever they
 * come from (an error message, a URL, a header echoed in a cause).
 */

export type LogFormat = "json" | "pretty"
export type LogLevel = "debug" | "info" | "warn" | "error"

export interface LogEntry {
  readonly time: Date
  readonly level: LogLevel
  readonly message: string
  /** Annotations (requestId…), an error, anything structured; redacted before writing. */
  readonly fields?: Readonly<Record<string, unknown>>
}

/** RICOCHET_LOG_FORMAT when set; otherwise pretty on a terminal, JSON when the output goes elsewhere. */
export const chooseLogFormat = (configured: string | undefined, isTty: boolean): LogFormat => {
  const value = configured?.trim().toLowerCase()
  if (value === "json" || value === "pretty") return value
  return isTty ? "pretty" : "json"
}

export const REDACTED = "[redacted]"

const SECRET_FIELD = /^(authorization|proxy-authorization|cookie|set-cookie|password|new_?password|current_?password|token|secret|api_?key|key|x-api-key)$/i

/** Strings that carry a secret, each with what replaces it (the prefix kept where it says what was there). */
const SECRET_TEXT: ReadonlyArray<readonly [RegExp, string]> = [
  [/\brico_[A-Za-z0-9]+/g, `rico_${REDACTED}`],
  [/\b(ricochet_session|ricochet_unlock_[A-Za-z0-9_-]*)=[^;\s"',&]+/g, `$1=${REDACTED}`],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${REDACTED}`],
  [/\b(password|token|secret)=[^&\s"',;]+/gi, `$1=${REDACTED}`],
  [/("(?:password|token|secret|apiKey|key)"\s*:\s*)"(?:[^"\\]|\\.)*"/gi, `$1"${REDACTED}"`]
]

export const scrub = (text: string): string => SECRET_TEXT.reduce((s, [pattern, replacement]) => s.replace(pattern, replacement), text)

/** A copy of `value` safe to write: secret-named fields replaced, strings scrubbed, errors as plain objects. */
export const redact = (value: unknown, depth = 0): unknown => {
  if (typeof value === "string") return scrub(value)
  if (value === null || typeof value !== "object") return value
  if (depth > 6) return "[…]"
  if (value instanceof Error) {
    const error: Record<string, unknown> = { name: value.name, message: scrub(value.message) }
    if (value.stack !== undefined) error.stack = scrub(value.stack)
    const code = (value as { code?: unknown }).code
    if (code !== undefined) error.code = code
    if (value.cause !== undefined) error.cause = redact(value.cause, depth + 1)
    return error
  }
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [key, field] of Object.entries(value)) out[key] = SECRET_FIELD.test(key) ? REDACTED : redact(field, depth + 1)
  return out
}

const PRETTY_LEVEL: Record<LogLevel, string> = { debug: "DEBUG", info: "INFO ", warn: "WARN ", error: "ERROR" }

const prettyValue = (value: unknown): string => {
  if (typeof value === "string") return value
  if (value !== null && typeof value === "object" && typeof (value as { stack?: unknown }).stack === "string") {
    return `\n${(value as { stack: string }).stack}`
  }
  return JSON.stringify(value)
}

/** The line to write, without its newline. */
export const formatLogLine = (format: LogFormat, entry: LogEntry): string => {
  const fields = (entry.fields === undefined ? {} : redact(entry.fields)) as Record<string, unknown>
  const message = scrub(entry.message)
  if (format === "json") {
    return JSON.stringify({ time: entry.time.toISOString(), level: entry.level, message, ...fields }, (_key, value) =>
      typeof value === "bigint" ? value.toString() : value)
  }
  const extra = Object.entries(fields).map(([key, value]) => (key === "error" || key === "cause" ? prettyValue(value) : ` ${key}=${prettyValue(value)}`))
  return `${entry.time.toISOString()} ${PRETTY_LEVEL[entry.level]} ${message}${extra.join("")}`
}
