import { Schema } from "effect"
import type { FieldIssue } from "./errors.ts"

/**
 * Text that cannot be stored as sent. PostgreSQL's text types refuse U+0000 outright (a 500 before
 * this check); a lone UTF-16 surrogate (`"\ud800"` in JSON) is not a character at all and would be
 * written as U+FFFD, a silent change. Both are refused with a 422 at the field that holds them.
 */

export const NUL_MESSAGE = "Must not contain the NUL character"
export const SURROGATE_MESSAGE = "Must be valid Unicode text (a lone UTF-16 surrogate is not)"

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/** Whether `text` holds a UTF-16 surrogate without its pair (not Unicode text). */
export const hasLoneSurrogate = (text: string): boolean => LONE_SURROGATE.test(text)

/** The reason `text` cannot be stored, or undefined. */
export const textProblem = (text: string): string | undefined =>
  text.includes("\u0000") ? NUL_MESSAGE : LONE_SURROGATE.test(text) ? SURROGATE_MESSAGE : undefined

/**
 * The first string (or object key) in `value` that cannot be stored, as a 422 issue at its path.
 * Callers pass decoded input, whose nesting the body limits already bound.
 */
export const findUnsafeText = (value: unknown, path: ReadonlyArray<string | number> = []): FieldIssue | undefined => {
  if (typeof value === "string") {
    const message = textProblem(value)
    return message === undefined ? undefined : { path, message, code: "invalid_value" }
  }
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = findUnsafeText(item, [...path, i])
      if (found !== undefined) return found
    }
    return undefined
  }
  if (value !== null && typeof value === "object") {
    for (const [key, inner] of Object.entries(value)) {
      const keyMessage = textProblem(key)
      if (keyMessage !== undefined) return { path: [...path, key], message: keyMessage, code: "invalid_value" }
      const found = findUnsafeText(inner, [...path, key])
      if (found !== undefined) return found
    }
  }
  return undefined
}

/**
 * The check every input schema (path, query, body) carries: after its fields decode, any text
 * that cannot be stored is a 422 at its field.
 */
export const storable = Schema.makeFilter((value: unknown) => {
  const issue = findUnsafeText(value)
  return issue === undefined || { path: issue.path, issue: issue.message }
})
