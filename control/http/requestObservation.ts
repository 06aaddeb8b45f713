import { Effect } from "effect"
import { HttpEffect, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApi } from "effect/http-api"
import { randomUUID } from "node:crypto"
import { Api } from "../api/Api.ts"
import { countApiRequest } from "../ops/metrics.ts"
import { makeRouteOf, type RouteTemplate } from "../ops/routeOf.ts"

/** An incoming X-Request-Id is kept when it is a plain token (a proxy's or the client's); anything else is replaced. */
const USABLE_REQUEST_ID = /^[A-Za-z0-9._:@-]{1,128}$/

export const requestIdOf = (incoming: string | undefined): string =>
  incoming !== undefined && USABLE_REQUEST_ID.test(incoming) ? incoming : randomUUID()

const templates: Array<RouteTemplate> = []
HttpApi.reflect(Api, { onGroup: () => {}, onEndpoint: ({ endpoint }) => templates.push({ method: endpoint.method, path: endpoint.path }) })
const routeOf = makeRouteOf(templates)

/**
 * Around every request control serves: a request id (echoed in X-Request-Id and on every log
 * line of the request), and once the answer is final (errors and 429s included, as the server
 * writes them) its count and latency by route and status.
 */
export const observeRequest = <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const started = performance.now()
    const requestId = requestIdOf(request.headers["x-request-id"])
    const route = routeOf(request.method, request.url)
    yield* HttpEffect.appendPreResponseHandler((_request, response) =>
      Effect.as(
        countApiRequest(request.method, route, response.status, (performance.now() - started) / 1000),
        HttpServerResponse.setHeader(response, "x-request-id", requestId)
      ))
    return yield* Effect.annotateLogs(app, { requestId })
  })
