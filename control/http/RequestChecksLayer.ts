import { Effect, Layer, type Schema } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiError } from "effect/http-api"
import { withCheckedBody } from "./bodyAsChecked.ts"
import { parseFormText } from "./formText.ts"
import { toFieldIssues } from "../kernel/issues.ts"
import { readBody } from "./readBody.ts"
import { ValidationFailed } from "../kernel/errors.ts"
import { RequestChecks } from "../kernel/RequestChecks.ts"

const searchOf = (url: string): string => {
  const start = url.indexOf("?")
  return start === -1 ? "" : url.slice(start + 1)
}

/** A failure of the library to decode a path id, a query or a body: the client's 422, with its issues. */
const isInputFailure = (error: unknown): boolean =>
  HttpApiError.HttpApiSchemaError.is(error) && error.kind !== "Body" && error.kind !== "ResponseHeaders"

const validationFailed = (error: unknown) =>
  ValidationFailed.of(toFieldIssues(((error as HttpApiError.HttpApiSchemaError).cause as Schema.SchemaError).issue))

export const RequestChecksLayer = Layer.succeed(RequestChecks)((httpEffect, { endpoint }) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    let decoded = httpEffect
    if (endpoint.query !== undefined) {
      // The library reads the search params flat; ours may be in bracket notation (`tagIds[]=a`).
      const query = yield* Effect.fromResult(parseFormText(searchOf(request.url), "query string"))
      decoded = Effect.provideService(decoded, HttpServerRequest.ParsedSearchParams, query as HttpServerRequest.ParsedSearchParams["Service"])
    }
    if (endpoint.payload.size > 0) {
      const body = yield* readBody(request)
      decoded = Effect.provideService(decoded, HttpServerRequest.HttpServerRequest, withCheckedBody(request, body))
    }
    return yield* decoded
  }).pipe(Effect.catchIf(isInputFailure, (error) => Effect.fail(validationFailed(error)))))
