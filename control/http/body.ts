import { ByteSize, Effect } from "effect"
import { HttpIncomingMessage, type HttpServerRequest } from "effect/http"
import { BadRequest } from "../api/errors.ts"
import { decodeText, knownEncoding, parseContentType } from "./charset.ts"
import { formEntriesToTree, parseFormText } from "./form.ts"
import { jsonShapeProblem } from "./limits.ts"

export const MAX_BODY_BYTES = 1024 * 1024

/** A request body before validation: JSON as parsed, or a form's nested string tree. */
export type RawBody =
  | { readonly kind: "json"; readonly value: unknown }
  | { readonly kind: "form"; readonly value: Record<string, unknown> }

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

const parseJson = (bytes: Uint8Array, charset: string | undefined) =>
  Effect.flatMap(text(bytes, charset), (json): Effect.Effect<RawBody, BadRequest> => {
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
    return Effect.succeed({ kind: "json", value })
  })

const multipartEntries = (buffer: ArrayBuffer, contentType: string) =>
  Effect.flatMap(
    Effect.tryPromise({
      try: () => new Response(buffer, { headers: { "content-type": contentType } }).formData(),
      catch: () => badRequest("The multipart body could not be parsed")
    }),
    (form) => {
      const entries: Array<[string, string]> = []
      for (const [key, value] of form.entries()) {
        if (typeof value !== "string") return Effect.fail(badRequest(`File uploads are not accepted (field ${JSON.stringify(key)})`))
        entries.push([key, value])
      }
      return Effect.succeed(entries)
    }
  )

/** The body by its media type: JSON, urlencoded or multipart, in its declared charset. */
const parseBody = (buffer: ArrayBuffer, header: string | undefined): Effect.Effect<RawBody, BadRequest> => {
  const contentType = parseContentType(header)
  if (contentType === undefined) return Effect.fail(badRequest(`The Content-Type ${JSON.stringify(header)} is not a media type`))
  const { mediaType, charset } = contentType
  const bytes = new Uint8Array(buffer)
  if (mediaType === "application/json" || mediaType.endsWith("+json")) return parseJson(bytes, charset)
  if (mediaType === "application/x-www-form-urlencoded") {
    return Effect.flatMap(text(bytes, charset), (form) =>
      Effect.map(Effect.fromResult(parseFormText(form, "form body", charset)), (value): RawBody => ({ kind: "form", value })))
  }
  if (mediaType === "multipart/form-data") {
    // Fields are read as UTF-8, as browsers send them; a part could name its own charset, none of ours does.
    const encoding = charset === undefined
      ? Effect.succeed("utf-8")
      : Effect.try({ try: () => knownEncoding(charset), catch: (error) => badRequest((error as Error).message) })
    return Effect.flatMap(encoding, (name) =>
      name !== "utf-8"
        ? Effect.fail(badRequest("Multipart bodies are read as UTF-8; send charset=utf-8 or none"))
        : Effect.flatMap(multipartEntries(buffer, header!), (entries) =>
          Effect.map(Effect.fromResult(formEntriesToTree(entries)), (value): RawBody => ({ kind: "form", value }))))
  }
  return Effect.fail(badRequest(
    `Unsupported content type ${JSON.stringify(mediaType || "(none)")}; send application/json, application/x-www-form-urlencoded or multipart/form-data`
  ))
}

/**
 * Reads and parses the body by its Content-Type: JSON, urlencoded or multipart, in its declared
 * charset, within MAX_BODY_BYTES and the shape bounds of limits.ts. An empty body is an empty
 * object, so a PATCH with nothing to change is valid and a POST reports missing fields.
 */
export const readBody = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<RawBody, BadRequest> =>
  Effect.gen(function*() {
    const declared = Number(request.headers["content-length"] ?? "0")
    if (declared > MAX_BODY_BYTES) return yield* tooLarge()
    const buffer = yield* request.arrayBuffer.pipe(
      Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(MAX_BODY_BYTES)),
      Effect.mapError((error) => (isTooLarge(error) ? tooLarge() : badRequest("The request body could not be read")))
    )
    if (buffer.byteLength > MAX_BODY_BYTES) return yield* tooLarge()
    if (buffer.byteLength === 0) return { kind: "json", value: {} } as const
    return yield* parseBody(buffer, request.headers["content-type"])
  })
