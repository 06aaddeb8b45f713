import { ByteSize, Effect, Result } from "effect"
import { HttpIncomingMessage, type HttpServerRequest } from "effect/http"
import { BadRequest } from "../kernel/errors.ts"
import { decodeText, knownEncoding, parseContentType } from "../kernel/charset.ts"
import { formEntriesToTree, parseFormText } from "./formText.ts"
import type { FormFields } from "../kernel/formTree.ts"
import { jsonShapeProblem } from "../kernel/limits.ts"

export const MAX_BODY_BYTES = 1024 * 1024

/**
 * A body that passed the checks made before it is decoded, in the form effect/http-api reads it:
 * JSON text, urlencoded fields, multipart fields. `asSent` says the library reads the request's
 * own bytes the same way (a UTF-8 body in the media type it declares): the request is then passed
 * on untouched, otherwise with its body as checked here (bodyAsChecked.ts).
 */
export type CheckedBody =
  | { readonly kind: "json"; readonly text: string; readonly asSent: boolean }
  | { readonly kind: "form"; readonly text: string; readonly charset: string; readonly asSent: boolean }
  | { readonly kind: "multipart"; readonly fields: FormFields; readonly asSent: false }

const badRequest = (message: string) => new BadRequest({ message })

const tooLarge = () => badRequest(`The request body is larger than ${MAX_BODY_BYTES} bytes`)

/**
 * Whether reading failed because the body passed MaxBodySize (a chunked body declares no length):
 * an HttpServerError whose reason is a RequestParseError of reason "BodyTooLarge".
 */
const isTooLarge = (error: unknown): boolean => {
  for (let cause: any = error, i = 0; cause !== null && typeof cause === "object" && i < 5; i++) {
    if (cause.reason === "BodyTooLarge" || cause._tag === "MaxBytesError") return true
    cause = typeof cause.reason === "object" ? cause.reason : cause.cause
  }
  return false
}

/** The charset decoders throw only for text that is not in the charset; that is the client's 400. */
const text = (bytes: Uint8Array, charset: string | undefined) =>
  Effect.try({ try: () => decodeText(bytes, charset), catch: (error) => badRequest((error as Error).message) })

const isUtf8 = (charset: string | undefined) => charset === undefined || knownEncoding(charset) === "utf-8"

const checkJson = (bytes: Uint8Array, charset: string | undefined, asSent: boolean) =>
  Effect.flatMap(text(bytes, charset), (json): Effect.Effect<CheckedBody, BadRequest> => {
    // Before JSON.parse: a megabyte of `[` is 500,000 levels that every later walk would recurse through.
    const shape = jsonShapeProblem(json)
    if (shape !== undefined) return Effect.fail(badRequest(shape))
    let value: unknown
    try {
      value = JSON.parse(json)
    } catch {
      return Effect.fail(badRequest("The request body is not valid JSON"))
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) return Effect.fail(badRequest("The request body must be a JSON object"))
    return Effect.succeed({ kind: "json", text: json, asSent: asSent && isUtf8(charset) })
  })

const checkForm = (bytes: Uint8Array, charset = "utf-8") =>
  Effect.flatMap(text(bytes, charset), (form) =>
    Effect.map(
      Effect.fromResult(parseFormText(form, "form body", charset)),
      (): CheckedBody => ({ kind: "form", text: form, charset, asSent: isUtf8(charset) })
    ))

const checkMultipart = (buffer: ArrayBuffer, contentType: string, charset: string | undefined) =>
  Effect.gen(function*() {
    // Fields are read as UTF-8, as browsers send them; a part could name its own charset, none of ours does.
    const encoding = charset === undefined
      ? "utf-8"
      : yield* Effect.try({ try: () => knownEncoding(charset), catch: (error) => badRequest((error as Error).message) })
    if (encoding !== "utf-8") return yield* badRequest("Multipart bodies are read as UTF-8; send charset=utf-8 or none")
    const form = yield* Effect.tryPromise({
      try: () => new Response(buffer, { headers: { "content-type": contentType } }).formData(),
      catch: () => badRequest("The multipart body could not be parsed")
    })
    const entries: Array<[string, string]> = []
    const fields: Record<string, string | Array<string>> = {}
    for (const [key, value] of form.entries()) {
      if (typeof value !== "string") return yield* badRequest(`File uploads are not accepted (field ${JSON.stringify(key)})`)
      entries.push([key, value])
      const seen = fields[key]
      fields[key] = seen === undefined ? value : typeof seen === "string" ? [seen, value] : [...seen, value]
    }
    yield* Effect.fromResult(Result.map(formEntriesToTree(entries), () => undefined))
    return { kind: "multipart", fields, asSent: false } as const
  })

/** The body by its media type: JSON, urlencoded or multipart, in its declared charset. */
const checkByType = (buffer: ArrayBuffer, header: string | undefined): Effect.Effect<CheckedBody, BadRequest> => {
  const contentType = parseContentType(header)
  if (contentType === undefined) return Effect.fail(badRequest(`The Content-Type ${JSON.stringify(header)} is not a media type`))
  const { mediaType, charset } = contentType
  const bytes = new Uint8Array(buffer)
  if (mediaType === "application/json" || mediaType.endsWith("+json")) return checkJson(bytes, charset, mediaType === "application/json")
  if (mediaType === "application/x-www-form-urlencoded") return checkForm(bytes, charset)
  if (mediaType === "multipart/form-data") return checkMultipart(buffer, header!, charset)
  return Effect.fail(badRequest(
    `Unsupported content type ${JSON.stringify(mediaType || "(none)")}; send application/json, application/x-www-form-urlencoded or multipart/form-data`
  ))
}

/**
 * Reads the body of the request once and checks it by its Content-Type: JSON, urlencoded or
 * multipart, in its declared charset, within MAX_BODY_BYTES and the shape bounds of limits.ts. An
 * empty body is an empty object, so a PATCH with nothing to change is valid and a POST reports
 * missing fields. The bytes stay with the request (effect/http-api reads them again from there).
 */
export const readBody = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<CheckedBody, BadRequest> =>
  Effect.gen(function*() {
    const declared = Number(request.headers["content-length"] ?? "0")
    if (declared > MAX_BODY_BYTES) return yield* tooLarge()
    const buffer = yield* request.arrayBuffer.pipe(
      Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(MAX_BODY_BYTES)),
      Effect.mapError((error) => (isTooLarge(error) ? tooLarge() : badRequest("The request body could not be read")))
    )
    if (buffer.byteLength > MAX_BODY_BYTES) return yield* tooLarge()
    if (buffer.byteLength === 0) return { kind: "json", text: "{}", asSent: false } as const
    return yield* checkByType(buffer, request.headers["content-type"])
  })
