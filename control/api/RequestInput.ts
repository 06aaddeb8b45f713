import type { Schema, SchemaAST } from "effect"
import { HttpApiMiddleware, HttpApiSchema } from "effect/http-api"
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

// How requests are read (bodies, forms, query strings) is RequestInputLayer.ts: this file is part of
// the declaration, which the typed client and the dashboard load in a browser.
