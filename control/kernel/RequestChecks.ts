import type { Schema, SchemaAST } from "effect"
import { HttpApiMiddleware, HttpApiSchema } from "effect/http-api"
import { formBody } from "./formBody.ts"
import { storable } from "./nul.ts"
import { BadRequest, ValidationFailed } from "./errors.ts"

/**
 * How the input of an endpoint with a path id, a query or a body is read. effect/http-api decodes
 * each slot with the endpoint's schemas (forms through formBody's bracket notation and coercion);
 * before it, this middleware checks what the spec asks of the request as it arrived, and passes
 * that request on:
 * - the body read once within our bounds (1 MiB, nesting, counts), in a media type we take, its
 *   text valid in its declared charset (control/http/readBody.ts);
 * - the query string in bracket notation within the same bounds, read by qs and handed to the
 *   library as the parsed search params;
 * - the library's schema failures as our 422 with `issues` (control/kernel/issues.ts).
 * Input that cannot be read is a 400 BadRequest, before any field is validated.
 */
export class RequestChecks extends HttpApiMiddleware.Service<RequestChecks>()("ricochet/RequestChecks", {
  error: [BadRequest.response, ValidationFailed.response]
}) {}

/** Parse options of the input slots (annotated on the API): unknown body fields refused, unknown query parameters ignored. */
export const PARAMS_OPTIONS: SchemaAST.ParseOptions = { errors: "all", onExcessProperty: "error" }
export const QUERY_OPTIONS: SchemaAST.ParseOptions = { errors: "all", onExcessProperty: "ignore" }
export const PAYLOAD_OPTIONS: SchemaAST.ParseOptions = { errors: "all", onExcessProperty: "error" }

/** A path or query schema: its text must be storable too. */
export const input = <S extends Schema.Top>(schema: S): S["Rebuild"] => schema.check(storable as never)

/**
 * A body schema in the three content types the API takes: JSON as is, and the two form types
 * through formBody, all ending in the same schema. The OpenAPI document describes the forms by
 * the shape they decode to (control/api/documentHeaders.ts).
 */
export const requestBody = <S extends Schema.Top>(schema: S) => {
  const checked = input(schema)
  const form = formBody(checked)
  return [checked, form.pipe(HttpApiSchema.asFormUrlEncoded()), form.pipe(HttpApiSchema.asMultipart())] as const
}

// How requests are checked is control/http/RequestChecksLayer.ts: this file is part of the declaration, which
// the typed client and the dashboard load in a browser.
