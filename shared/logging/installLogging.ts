import { Cause, Layer, Logger, References } from "effect"
import { format as formatArgs } from "node:util"
import { chooseLogFormat, formatLogLine, type LogFormat, type LogLevel } from "./logLine.ts"

/**
 * Makes every log line of a server process (control, engine, `npm start`) one format: console
 * calls and Effect's logger both go through formatLogLine. What a person is meant to read once
 * (the first start's block, a configuration error) is written with `printPlain`, never as a log.
 */

let installed: LogFormat | undefined

const write = (level: LogLevel, line: string) => (level === "warn" || level === "error" ? process.stderr : process.stdout).write(`${line}\n`)

/** console.* arguments as a message, with a trailing error (or object) kept as a field. */
const consoleEntry = (args: ReadonlyArray<unknown>): { message: string; fields?: Record<string, unknown> } => {
  const last = args[args.length - 1]
  if (args.length > 1 && last !== null && typeof last === "object") {
    return { message: formatArgs(...args.slice(0, -1)), fields: { [last instanceof Error ? "error" : "detail"]: last } }
  }
  return { message: formatArgs(...args) }
}

/**
 * Chooses the format (RICOCHET_LOG_FORMAT, else pretty on a terminal and JSON otherwise) and
 * routes console.log/info/warn/error/debug through it. The choice is written back to the
 * environment so worker threads (the click writer) log the same way. Idempotent.
 */
export const installConsoleLogging = (): LogFormat => {
  if (installed !== undefined) return installed
  const format = chooseLogFormat(process.env.RICOCHET_LOG_FORMAT, process.stdout.isTTY === true)
  process.env.RICOCHET_LOG_FORMAT = format
  installed = format
  const as = (level: LogLevel) => (...args: Array<unknown>) => {
    const { message, fields } = consoleEntry(args)
    write(level, formatLogLine(format, { time: new Date(), level, message, ...(fields === undefined ? {} : { fields }) }))
  }
  console.log = as("info")
  console.info = as("info")
  console.warn = as("warn")
  console.error = as("error")
  console.debug = as("debug")
  return format
}

/** Text for a person (the first start's block, a configuration error): as is, never a log line. */
export const printPlain = (text: string, stream: "stdout" | "stderr" = "stdout") => process[stream].write(`${text}\n`)

const levelOf = (label: string): LogLevel => {
  switch (label) {
    case "Fatal":
    case "Error":
      return "error"
    case "Warn":
      return "warn"
    case "Debug":
    case "Trace":
      return "debug"
    default:
      return "info"
  }
}

/** Effect's logger in the same format: annotations (the API's requestId) become fields; the cause, if any, `error`. */
export const effectLogger = (format: LogFormat) =>
  Logger.make<unknown, void>(({ message, logLevel, cause, fiber, date }) => {
    const level = levelOf(logLevel)
    const parts = Array.isArray(message) ? message : [message]
    const fields: Record<string, unknown> = { ...fiber.getRef(References.CurrentLogAnnotations) }
    const text = parts.filter((part) => typeof part !== "object" || part === null).map(String).join(" ")
    const objects = parts.filter((part) => typeof part === "object" && part !== null && !Cause.isCause(part))
    if (objects.length > 0) fields.detail = objects.length === 1 ? objects[0] : objects
    const causes = [cause, ...parts.filter(Cause.isCause)].filter((c) => c.reasons.length > 0)
    if (causes.length > 0) fields.error = causes.map((c) => Cause.pretty(c)).join("\n")
    write(level, formatLogLine(format, { time: date, level, message: text, fields }))
  })

/** Replaces Effect's default logger with effectLogger, in the format installConsoleLogging chose (at build time). */
export const LoggingLayer = Layer.suspend(() => Logger.layer([effectLogger(installConsoleLogging())]))
