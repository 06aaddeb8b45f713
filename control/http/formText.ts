import { Predicate, Result } from "effect"
import qs from "qs"
import { BadRequest } from "../kernel/errors.ts"
import { percentDecode } from "../kernel/charset.ts"
import { FORM_OPTIONS, type FormTree } from "../kernel/formTree.ts"
import { formLimitMessage } from "../kernel/limits.ts"
import { hasLoneSurrogate } from "../kernel/nul.ts"

/**
 * Reading form and query text when a request arrives: the escapes in its charset and the bounds
 * of limits.ts, each refused with a 400 before anything is decoded.
 */

export type FormText = "form body" | "query string"

/**
 * The nested shape of urlencoded text, every leaf still a string. `charset` is what the escapes
 * are bytes of. Past a bound, or with escapes that are not text, a 400.
 */
export const parseFormText = (text: string, what: FormText = "form body", charset = "utf-8"): Result.Result<Record<string, FormTree>, BadRequest> => {
  try {
    return Result.succeed(qs.parse(text, {
      ...FORM_OPTIONS,
      ignoreQueryPrefix: what === "query string",
      decoder: (part: string) => percentDecode(part, charset)
    }) as Record<string, FormTree>)
  } catch (error) {
    // qs throws for a bound passed, the decoder for escapes that are not text; nothing else is expected.
    if (Predicate.isTagged(error, "TextDecodingError")) {
      return Result.fail(new BadRequest({ message: `The ${what} cannot be read: ${(error as unknown as Error).message}` }))
    }
    const limit = formLimitMessage(error, what)
    if (limit !== undefined) return Result.fail(new BadRequest({ message: limit }))
    throw error
  }
}

/** The nested shape of form entries already decoded (multipart fields), within the same bounds as parseFormText. */
export const formEntriesToTree = (
  entries: Iterable<readonly [string, string]>,
  what: FormText = "form body"
): Result.Result<Record<string, FormTree>, BadRequest> => {
  const parts: Array<string> = []
  for (const [key, value] of entries) {
    // encodeURIComponent refuses lone surrogates.
    if (hasLoneSurrogate(key) || hasLoneSurrogate(value)) return Result.fail(new BadRequest({ message: `The ${what} holds text that is not Unicode` }))
    parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(value)}`)
  }
  return parseFormText(parts.join("&"), what)
}

/**
 * The fields of urlencoded text, split as URLSearchParams splits them (as effect/http-api reads a
 * UTF-8 body), with the escapes read in `charset`. Only for text parseFormText has accepted.
 */
export const formFieldsOfText = (text: string, charset: string): Array<readonly [string, string]> => {
  const fields: Array<readonly [string, string]> = []
  for (const part of text.split("&")) {
    if (part === "") continue
    const equals = part.indexOf("=")
    const [key, value] = equals === -1 ? [part, ""] : [part.slice(0, equals), part.slice(equals + 1)]
    fields.push([percentDecode(key, charset), percentDecode(value, charset)])
  }
  return fields
}
