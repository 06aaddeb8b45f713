import { Effect } from "effect"
import type { HttpServerRequest } from "effect/http"
import { ApiError, apiError } from "./ApiError.ts"
import { formEntriesToTree } from "./form.ts"

export const MAX_BODY_BYTES = 1024 * 1024

/** A request body before validation: JSON as parsed, or a form's nested string tree. */
export type RawBody =
  | { readonly kind: "json"; readonly value: unknown }
  | { readonly kind: "form"; readonly value: Record<string, unknown> }

const badRequest = (message: string) => apiError("bad_request", message)

const mediaType = (header: string | undefined): string => (header ?? "").split(";")[0].trim().toLowerCase()

const formEntries = async (buffer: ArrayBuffer, contentType: string): Promise<Array<[string, string]>> => {
  const form = await new Response(buffer, { headers: { "content-type": contentType } }).formData()
  const entries: Array<[string, string]> = []
  for (const [key, value] of form.entries()) {
    if (typeof value !== "string") throw badRequest(`File uploads are not accepted (field ${JSON.stringify(key)})`)
    entries.push([key, value])
  }
  return entries
}

/**
 * Reads and parses the body by its Content-Type: JSON, urlencoded or multipart. An empty body is
 * an empty object, so a PATCH with nothing to change is valid and a POST reports missing fields.
 */
export const readBody = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<RawBody, ApiError> =>
  Effect.gen(function*() {
    const declared = Number(request.headers["content-length"] ?? "0")
    if (declared > MAX_BODY_BYTES) return yield* badRequest(`The request body is larger than ${MAX_BODY_BYTES} bytes`)
    const buffer = yield* Effect.mapError(request.arrayBuffer, () => badRequest("The request body could not be read"))
    if (buffer.byteLength > MAX_BODY_BYTES) return yield* badRequest(`The request body is larger than ${MAX_BODY_BYTES} bytes`)
    const contentType = request.headers["content-type"]
    const type = mediaType(contentType)
    if (buffer.byteLength === 0) return { kind: "json", value: {} } as const
    if (type === "application/json" || type.endsWith("+json")) {
      const text = new TextDecoder("utf-8", { fatal: false }).decode(buffer)
      let value: unknown
      try {
        value = JSON.parse(text)
      } catch {
        return yield* badRequest("The request body is not valid JSON")
      }
      if (value === null || typeof value !== "object" || Array.isArray(value)) {
        return yield* badRequest("The request body must be a JSON object")
      }
      return { kind: "json", value } as const
    }
    if (type === "application/x-www-form-urlencoded") {
      const params = new URLSearchParams(new TextDecoder().decode(buffer))
      return { kind: "form", value: formEntriesToTree(params.entries()) } as const
    }
    if (type === "multipart/form-data") {
      const entries = yield* Effect.tryPromise({
        try: () => formEntries(buffer, contentType!),
        catch: (error) => (error instanceof ApiError ? error : badRequest("The multipart body could not be parsed"))
      })
      return { kind: "form", value: formEntriesToTree(entries) } as const
    }
    return yield* badRequest(
      `Unsupported content type ${JSON.stringify(type || "(none)")}; send application/json, application/x-www-form-urlencoded or multipart/form-data`
    )
  })
