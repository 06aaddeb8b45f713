import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { createServer } from "node:http"
import { openApiDocument } from "./openapi.ts"
import { publicRoute, runRoute, unknownRoute } from "./pipeline.ts"
import { readinessRoute } from "./readiness.ts"
import { apiRoutes } from "./routes.ts"

let cachedDocument: unknown
const document = () => (cachedDocument ??= openApiDocument(apiRoutes))

/**
 * All HTTP routes of control: the /v1 table, its OpenAPI description, liveness (/healthz: the
 * process runs, nothing else asked), readiness (/readyz: database and bus), and JSON 404s.
 */
export const ApiRouter = HttpRouter.use(Effect.fnUntraced(function*(router) {
  for (const route of apiRoutes) {
    yield* router.add(route.method, route.path, Effect.flatMap(HttpRouter.params, (params) => runRoute(route, params)))
  }
  yield* router.add("GET", "/v1/openapi.json", publicRoute(document))
  yield* router.add("*", "/v1/*", unknownRoute)
  yield* router.add("GET", "/healthz", Effect.succeed(HttpServerResponse.jsonUnsafe({ status: "ok" })))
  yield* router.add("GET", "/readyz", readinessRoute)
  yield* router.add("*", "*", Effect.succeed(HttpServerResponse.jsonUnsafe(
    { error: { code: "not_found", message: "Not found; the API lives under /v1" } },
    { status: 404 }
  )))
}))

/** Serves the router on a Node HTTP server at host:port. */
export const ApiServerLayer = (host: string, port: number) =>
  HttpRouter.serve(ApiRouter, { disableLogger: true, disableListenLog: true }).pipe(
    Layer.provide(NodeHttpServer.layer(createServer, { port, host }))
  )
