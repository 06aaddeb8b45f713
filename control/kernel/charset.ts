import { MIMEType } from "node:util"

/**
 * Request text in the charset it declares. A body is decoded with the WHATWG decoder for its
 * `charset` parameter (utf-8 when none; utf-16le/be, iso-8859-1, windows-1252, shift_jis, … as
 * TextDecoder knows them), strictly: bytes that are not text in that charset are refused, never
 * replaced, and an unknown charset is refused rather than read as UTF-8.
 */

export interface ContentType {
  /** Lower-case `type/subtype`, "" when the header is absent. */
  readonly mediaType: string
  /** The `charset` parameter as sent, if any. */
  readonly charset: string | undefined
}

/** The media type and charset of a Content-Type header; undefined when it is not a media type. */
export const parseContentType = (header: string | undefined): ContentType | undefined => {
  if (header === undefined || header.trim() === "") return { mediaType: "", charset: undefined }
  try {
    const parsed = new MIMEType(header)
    return { mediaType: parsed.essence, charset: parsed.params.get("charset") ?? undefined }
  } catch {
    return undefined
  }
}

/** Thrown by the decoders here; the message is fit for a client. */
export class TextDecodingError extends Error {
  readonly _tag = "TextDecodingError"
}

const strictDecoder = (charset: string, ignoreBOM = false): TextDecoder => {
  try {
    return new TextDecoder(charset, { fatal: true, ignoreBOM })
  } catch {
    throw new TextDecodingError(`Unsupported charset ${JSON.stringify(charset)}`)
  }
}

/**
 * A strict decoder for `charset`, to decode `bytes` with (at once, or in pieces with `stream`);
 * "utf-16" without an order follows the byte-order mark (little-endian without one, as WHATWG
 * reads it). Throws TextDecodingError for an unknown charset.
 */
export const decoderFor = (charset: string, bytes: Uint8Array): TextDecoder => {
  if (charset.trim().toLowerCase() === "utf-16" && bytes[0] === 0xfe && bytes[1] === 0xff) return strictDecoder("utf-16be")
  return strictDecoder(charset)
}

/** The text of `bytes` in `charset` (default utf-8); a leading byte-order mark is dropped. */
export const decodeText = (bytes: Uint8Array, charset = "utf-8"): string => {
  const decoder = decoderFor(charset, bytes)
  try {
    return decoder.decode(bytes)
  } catch {
    throw new TextDecodingError(`The request body is not valid ${decoder.encoding} text`)
  }
}

/** The WHATWG name of `charset` ("latin1" → "windows-1252"); throws TextDecodingError when unknown. */
export const knownEncoding = (charset: string): string => strictDecoder(charset).encoding

const PERCENT_RUN = /(?:%[0-9a-fA-F]{2})+/g

/**
 * Percent-decoding of form and query text: `+` is a space, each run of `%XX` escapes is bytes of
 * `charset` (so `%C3%BC` is ü in UTF-8 and `%FC` is ü in ISO-8859-1), and a `%` not followed by
 * two hex digits stays a `%`, as browsers and URLSearchParams read it. Escapes that are not text
 * in the charset throw TextDecodingError.
 */
export const percentDecode = (text: string, charset = "utf-8"): string => {
  const spaced = text.includes("+") ? text.replace(/\+/g, " ") : text
  if (!spaced.includes("%")) return spaced
  // A byte-order mark inside a value is a character (U+FEFF) of that value.
  const decoder = strictDecoder(charset, true)
  return spaced.replace(PERCENT_RUN, (run) => {
    const bytes = new Uint8Array(run.length / 3)
    for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(run.slice(i * 3 + 1, i * 3 + 3), 16)
    try {
      return decoder.decode(bytes)
    } catch {
      throw new TextDecodingError(`${JSON.stringify(run.length > 30 ? `${run.slice(0, 30)}…` : run)} is not percent-encoded ${decoder.encoding} text`)
    }
  })
}
