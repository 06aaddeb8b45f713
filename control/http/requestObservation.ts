import { Effect } from "effect"
import { HttpEffect, HttpServerRequest, HttpServerResponse } from "effect/http"
import { randomUUID } from "node:crypto"
import { clientAddress } from "./AdmissionLayer.ts"
import { countApiRequest } from "../ops/metrics.ts"
import { makeRouteOf } from "../ops/routeOf.ts"
import { API_ROUTES } from "./apiRoutes.ts"
import { type RequestLogLine, requestLogLines } from "./requestLog.ts"
import type { RequestLogSettings } from "./RequestLogSettings.ts"

/** An incoming X-Request-Id is kept when it is a plain token (a proxy's or the client's); anything else is replaced. */
const USABLE_REQUEST_ID = /^[A-Za-z0-9._:@-]{1,128}$/

export const requestIdOf = (incoming: string | undefined): string =>
  incoming !== undefined && USABLE_REQUEST_ID.test(incoming) ? incoming : randomUUID()

const routeOf = makeRouteOf(API_ROUTES)

export type ObservationSettings = RequestLogSettings["Service"] & { readonly trustProxy: boolean }

const write = (line: RequestLogLine) => {
  const log = line.level === "error" ? Effect.logError : line.level === "warn" ? Effect.logWarning : Effect.logInfo
  return Effect.annotateLogs(log(line.message), line.fields)
}

/** The answer body's size when known before sending (a stream's is not). */
const bytesOf = (response: HttpServerResponse.HttpServerResponse): number | undefined =>
  response.body._tag === "Empty" ? 0 : response.body.contentLength

/**
 * Around every request control serves: a request id (echoed in X-Request-Id and on every log
 * line of the request), and once the answer is final (errors and 429s included, as the server
 * writes them) its count and latency by route and status, and its log lines (requestLog.ts:
 * failures, slow answers, the access log).
 */
export const observeRequest = (settings: ObservationSettings) =>
<E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const started = performance.now()
    const requestId = requestIdOf(request.headers["x-request-id"])
    const route = routeOf(request.method, request.url)
    yield* HttpEffect.appendPreResponseHandler((_request, response) => {
      const durationMs = performance.now() - started
      const lines = requestLogLines({
        requestId,
        method: request.method,
        path: request.url,
        route,
        status: response.status,
        durationMs,
        client: clientAddress(request, settings.trustProxy),
        bytes: bytesOf(response)
      }, settings)
      return Effect.as(
        Effect.andThen(countApiRequest(request.method, route, response.status, durationMs / 1000), Effect.forEach(lines, write, { discard: true })),
        HttpServerResponse.setHeader(response, "x-request-id", requestId)
      )
    })
    return yield* Effect.annotateLogs(app, { requestId })
  })
