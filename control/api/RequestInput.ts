import { Effect, Layer, Schema, SchemaAST } from "effect"
import { HttpRouter, HttpServerRequest } from "effect/http"
import { HttpApiError, type HttpApiEndpoint, HttpApiMiddleware, HttpApiSchema } from "effect/http-api"
import { readBody } from "../http/body.ts"
import { coerce, parseFormText } from "../http/form.ts"
import { toFieldIssues } from "../http/issues.ts"
import { storable } from "../http/nul.ts"
import { BadRequest, ValidationFailed } from "./errors.ts"

/**
 * How the request of an endpoint with a path id, a query or a body is read. effect/http-api
 * decodes each slot with its schema; what it does not do, this middleware does before it:
 * - bodies in JSON, urlencoded and multipart, each read once within our bounds (1 MiB, nesting,
 *   counts), in its declared charset, forms in bracket notation or JSON-in-a-field (qs, coerced
 *   by the schema), handed to the library's JSON decoder as canonical JSON;
 * - query strings in bracket notation, read by qs in their charset, handed over as the parsed
 *   search params;
 * - the order of a request's faults: a bad path id before a bad query before a bad body;
 * - schema failures as our 422 with `issues` (control/http/issues.ts).
 * Every unreadable input is a 400 BadRequest.
 */
export class RequestInput extends HttpApiMiddleware.Service<RequestInput>()("ricochet/RequestInput", {
  error: [BadRequest.response, ValidationFailed.response]
}) {}

/** Parse options of the input slots (annotated on the API): unknown body fields refused, unknown query parameters ignored. */
export const PARAMS_OPTIONS: SchemaAST.ParseOptions = { errors: "all", onExcessProperty: "error" }
export const QUERY_OPTIONS: SchemaAST.ParseOptions = { errors: "all", onExcessProperty: "ignore" }
export const PAYLOAD_OPTIONS: SchemaAST.ParseOptions = { errors: "all", onExcessProperty: "error" }

/** A path or query schema: its text must be storable too. */
export const input = <S extends Schema.Top>(schema: S): S["Rebuild"] => schema.check(storable as never)

/**
 * A body schema in the three content types the API takes (one schema validates them all; the
 * form types are declared for the OpenAPI document and the typed client).
 */
export const requestBody = <S extends Schema.Top>(schema: S) => {
  const checked = input(schema)
  return [checked, checked.pipe(HttpApiSchema.asFormUrlEncoded()), checked.pipe(HttpApiSchema.asMultipart())] as const
}

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
