import { ByteSize, Effect } from "effect"
import { HttpIncomingMessage, type HttpServerRequest } from "effect/http"
import { ApiError, apiError } from "./ApiError.ts"
import { decodeText, knownEncoding, parseContentType, TextDecodingError } from "./charset.ts"
import { formEntriesToTree, parseFormText } from "./form.ts"
import { jsonShapeProblem } from "./limits.ts"

export const MAX_BODY_BYTES = 1024 * 1024

/** A request body before validation: JSON as parsed, or a form's nested string tree. */
export type RawBody =
  | { readonly kind: "json"; readonly value: unknown }
  | { readonly kind: "form"; readonly value: Record<string, unknown> }

const badRequest = (message: string) => apiError("bad_request", message)

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

const formEntries = async (buffer: ArrayBuffer, contentType: string): Promise<Array<[string, string]>> => {
  const form = await new Response(buffer, { headers: { "content-type": contentType } }).formData()
  const entries: Array<[string, string]> = []
  for (const [key, value] of form.entries()) {
    if (typeof value !== "string") throw badRequest(`File uploads are not accepted (field ${JSON.stringify(key)})`)
    entries.push([key, value])
  }
  return entries
}

const parseJson = (bytes: Uint8Array, charset: string | undefined): RawBody => {
  const text = decodeText(bytes, charset)
  // Before JSON.parse: a megabyte of `[` is 500,000 levels that every later walk would recurse through.
  const shape = jsonShapeProblem(text)
  if (shape !== undefined) throw badRequest(shape)
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw badRequest("The request body is not valid JSON")
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw badRequest("The request body must be a JSON object")
  return { kind: "json", value }
}

/** The body by its media type; client mistakes are thrown as ApiErrors (or TextDecodingErrors). */
const parseBody = async (buffer: ArrayBuffer, header: string | undefined): Promise<RawBody> => {
  const contentType = parseContentType(header)
  if (contentType === undefined) throw badRequest(`The Content-Type ${JSON.stringify(header)} is not a media type`)
  const { mediaType, charset } = contentType
  const bytes = new Uint8Array(buffer)
  if (mediaType === "application/json" || mediaType.endsWith("+json")) return parseJson(bytes, charset)
  if (mediaType === "application/x-www-form-urlencoded") {
    return { kind: "form", value: parseFormText(decodeText(bytes, charset), "form body", charset) }
  }
  if (mediaType === "multipart/form-data") {
    // Fields are read as UTF-8, as browsers send them; a part could name its own charset, none of ours does.
    if (charset !== undefined && knownEncoding(charset) !== "utf-8") {
      throw badRequest("Multipart bodies are read as UTF-8; send charset=utf-8 or none")
    }
    let entries: Array<[string, string]>
    try {
      entries = await formEntries(buffer, header!)
    } catch (error) {
      throw error instanceof ApiError ? error : badRequest("The multipart body could not be parsed")
    }
    return { kind: "form", value: formEntriesToTree(entries) }
  }
  throw badRequest(
    `Unsupported content type ${JSON.stringify(mediaType || "(none)")}; send application/json, application/x-www-form-urlencoded or multipart/form-data`
  )
}

/**
 * Reads and parses the body by its Content-Type: JSON, urlencoded or multipart, in its declared
 * charset, within MAX_BODY_BYTES and the shape bounds of limits.ts. An empty body is an empty
 * object, so a PATCH with nothing to change is valid and a POST reports missing fields.
 */
export const readBody = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<RawBody, ApiError> =>
  Effect.gen(function*() {
    const declared = Number(request.headers["content-length"] ?? "0")
    if (declared > MAX_BODY_BYTES) return yield* tooLarge()
    const buffer = yield* request.arrayBuffer.pipe(
      Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(MAX_BODY_BYTES)),
      Effect.mapError((error) => (isTooLarge(error) ? tooLarge() : badRequest("The request body could not be read")))
    )
    if (buffer.byteLength > MAX_BODY_BYTES) return yield* tooLarge()
    if (buffer.byteLength === 0) return { kind: "json", value: {} } as const
    // Anything else thrown is a defect: logged and answered 500 by the pipeline.
    const parsed = yield* Effect.promise(() =>
      parseBody(buffer, request.headers["content-type"]).catch((error: unknown) => {
        if (error instanceof ApiError) return error
        if (error instanceof TextDecodingError) return badRequest(error.message)
        throw error
      })
    )
    return parsed instanceof ApiError ? yield* parsed : parsed
  })
