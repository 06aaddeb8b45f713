import { Effect } from "effect"
import { Headers, type HttpServerRequest, UrlParams } from "effect/http"
import { formFieldsOfText } from "./formText.ts"
import type { CheckedBody } from "./readBody.ts"

const encoder = new TextEncoder()

/**
 * The request as it arrived (its address, headers, cookies, URL: `modify` keeps them), with the
 * body effect/http-api will read replaced by the checked one, where the library could not read the
 * bytes as sent: text in another charset than UTF-8, an empty body (an empty object), a `+json`
 * media type, a multipart body (read once already; the library would stream it again).
 */
export const withCheckedBody = (request: HttpServerRequest.HttpServerRequest, body: CheckedBody): HttpServerRequest.HttpServerRequest => {
  if (body.asSent) return request
  const contentType = body.kind === "json" ? "application/json" : body.kind === "form" ? "application/x-www-form-urlencoded" : "multipart/form-data"
  const view = request.modify({ headers: Headers.set(request.headers, "content-type", contentType) })
  const text = body.kind === "json" ? body.text : ""
  const read = <A>(value: A) => ({ value: Effect.succeed(value), configurable: true })
  return Object.defineProperties(view, {
    text: read(text),
    arrayBuffer: read(encoder.encode(text).buffer),
    urlParamsBody: read(UrlParams.make(body.kind === "form" ? formFieldsOfText(body.text, body.charset) : [])),
    multipart: read(body.kind === "multipart" ? body.fields : {})
  })
}
