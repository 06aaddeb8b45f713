import { Effect, Layer, Schema, SchemaAST } from "effect"
import { HttpRouter, HttpServerRequest } from "effect/http"
import { HttpApiError, type HttpApiEndpoint } from "effect/http-api"
import { readBody } from "../http/body.ts"
import { coerce, parseFormText } from "../http/form.ts"
import { toFieldIssues } from "../http/issues.ts"
import { ValidationFailed } from "./errors.ts"
import { PARAMS_OPTIONS, QUERY_OPTIONS, RequestInput } from "./RequestInput.ts"

const validationFailed = (error: Schema.SchemaError) => ValidationFailed.of(toFieldIssues(error.issue))

/** Decodes one input slot as the library will; its schemas need no services. */
const check = (schema: Schema.Top, options: SchemaAST.ParseOptions, value: unknown): Effect.Effect<unknown, ValidationFailed> =>
  Effect.mapError(Schema.decodeUnknownEffect(schema, options)(value) as Effect.Effect<unknown, Schema.SchemaError>, validationFailed)

const searchOf = (url: string): string => {
  const start = url.indexOf("?")
  return start === -1 ? "" : url.slice(start + 1)
}

/** The JSON payload schema of an endpoint, if it takes a body. */
const jsonPayload = (endpoint: HttpApiEndpoint.Top): Schema.Top | undefined => endpoint.payload.get("application/json")?.schemas[0]

/** The request as the library's JSON decoder reads it: the same request with `value` as its JSON body. */
const withJsonBody = (request: HttpServerRequest.HttpServerRequest, value: unknown) =>
  HttpServerRequest.fromWeb(new Request(new URL(request.url, "http://localhost"), {
    method: request.method,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(value)
  }))

const read = (endpoint: HttpApiEndpoint.Top) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const route = yield* HttpRouter.RouteContext
    const provided: { query?: HttpServerRequest.ParsedSearchParams["Service"]; request?: HttpServerRequest.HttpServerRequest } = {}
    if (endpoint.params !== undefined) {
      yield* check(endpoint.params, PARAMS_OPTIONS, route.params)
    }
    if (endpoint.query !== undefined) {
      const tree = yield* Effect.fromResult(parseFormText(searchOf(request.url), "query string"))
      // Query parameters other than the declared ones are ignored: caches and proxies add their own.
      yield* check(Schema.toCodecArrayFromSingle(endpoint.query), QUERY_OPTIONS, tree)
      // The decoder takes any string tree; the type says flat because the library parses flat.
      provided.query = tree as HttpServerRequest.ParsedSearchParams["Service"]
    }
    const payload = jsonPayload(endpoint)
    if (payload !== undefined) {
      const body = yield* readBody(request)
      const value = body.kind === "form" ? coerce(SchemaAST.toType(payload.ast), body.value) : body.value
      provided.request = withJsonBody(request, value)
    }
    return provided
  })

export const RequestInputLayer = Layer.succeed(RequestInput)((httpEffect, { endpoint }) =>
  Effect.flatMap(read(endpoint), ({ query, request }) => {
    let effect = httpEffect
    if (query !== undefined) effect = Effect.provideService(effect, HttpServerRequest.ParsedSearchParams, query)
    if (request !== undefined) effect = Effect.provideService(effect, HttpServerRequest.HttpServerRequest, request)
    return effect
  }).pipe(
    Effect.catchIf(
      (error) => HttpApiError.HttpApiSchemaError.is(error) && error.kind !== "Body" && error.kind !== "ResponseHeaders",
      (error) => Effect.fail(validationFailed((error as unknown as HttpApiError.HttpApiSchemaError).cause))
    )
  ))
