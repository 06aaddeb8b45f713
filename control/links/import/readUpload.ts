import { ByteSize, Effect } from "effect"
import { HttpIncomingMessage, type HttpServerRequest } from "effect/http"
import { setImmediate } from "node:timers/promises"
import { BadRequest } from "../../kernel/errors.ts"
import { decoderFor, parseContentType } from "../../kernel/charset.ts"
import { MAX_IMPORT_BYTES } from "./parseUpload.ts"

/** Bytes decoded at a time: 64 MiB at once would hold the event loop (control's and the embedded engine's) for a tenth of a second. */
const DECODE_SLICE = 1024 * 1024

const badRequest = (message: string) => new BadRequest({ message })

const tooLarge = () => badRequest(`The upload is larger than ${MAX_IMPORT_BYTES / 1024 / 1024} MiB`)

/** The text of `bytes` in `charset` (UTF-8 by default; a leading BOM dropped), a slice at a time. */
const decode = (bytes: Uint8Array, charset: string | undefined) =>
  Effect.gen(function*() {
    const decoder = yield* Effect.try({ try: () => decoderFor(charset ?? "utf-8", bytes), catch: (error) => badRequest((error as Error).message) })
    const parts: Array<string> = []
    for (let at = 0; at === 0 || at < bytes.length; at += DECODE_SLICE) {
      const slice = bytes.subarray(at, at + DECODE_SLICE)
      parts.push(yield* Effect.try({
        try: () => decoder.decode(slice, { stream: at + DECODE_SLICE < bytes.length }),
        catch: () => badRequest(`The request body is not valid ${decoder.encoding} text`)
      }))
      yield* Effect.promise(() => setImmediate())
    }
    return parts.join("")
  })

/**
 * The CSV text of an import upload: a `text/csv` body (in its charset, UTF-8 by default), or a
 * multipart form with the file in its `file` field (read as UTF-8). Within MAX_IMPORT_BYTES, which
 * is larger than other bodies' bound: the file is the point of the request.
 */
export const readUpload = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<string, BadRequest> =>
  Effect.filterOrFail(
    readText(request),
    // The file is stored as text, which PostgreSQL cannot hold a NUL in.
    (text) => !text.includes("\u0000"),
    () => badRequest("The file contains a NUL character; a CSV of links has none")
  )

const readText = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<string, BadRequest> =>
  Effect.gen(function*() {
    const header = request.headers["content-type"]
    const contentType = parseContentType(header)
    if (contentType === undefined) return yield* badRequest(`The Content-Type ${JSON.stringify(header)} is not a media type`)
    const { mediaType, charset } = contentType
    if (mediaType !== "text/csv" && mediaType !== "multipart/form-data") {
      return yield* badRequest(`Unsupported content type ${JSON.stringify(mediaType || "(none)")}; send text/csv, or multipart/form-data with the file as "file"`)
    }
    if (Number(request.headers["content-length"] ?? "0") > MAX_IMPORT_BYTES) return yield* tooLarge()
    const buffer = yield* request.arrayBuffer.pipe(
      Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(MAX_IMPORT_BYTES)),
      Effect.mapError(() => tooLarge())
    )
    if (buffer.byteLength > MAX_IMPORT_BYTES) return yield* tooLarge()
    if (mediaType === "text/csv") return yield* decode(new Uint8Array(buffer), charset)
    const form = yield* Effect.tryPromise({
      try: () => new Response(buffer, { headers: { "content-type": header! } }).formData(),
      catch: () => badRequest("The multipart body could not be parsed")
    })
    const file = form.get("file")
    if (file === null) return yield* badRequest('The form has no "file" field')
    if (typeof file === "string") return file
    const bytes = new Uint8Array(yield* Effect.tryPromise({ try: () => file.arrayBuffer(), catch: () => badRequest('The form\'s "file" could not be read') }))
    return yield* decode(bytes, undefined)
  })
