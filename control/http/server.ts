import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { createServer } from "node:http"
import { answerClientErrors } from "./clientError.ts"
import { openApiDocument } from "./openapi.ts"
import { publicRoute, runRoute, undecodableV1Path, unknownRoute } from "./pipeline.ts"
import { isDecodablePath } from "./requestPath.ts"
import { readinessRoute } from "./readiness.ts"
import { apiRoutes } from "./routes.ts"

let cachedDocument: unknown
const document = () => (cachedDocument ??= openApiDocument(apiRoutes))

const undecodablePath = HttpServerResponse.jsonUnsafe(
  { error: { code: "bad_request", message: "The request path is not percent-encoded UTF-8" } },
  { status: 400 }
)

/**
 * All HTTP routes of control: the /v1 table, its OpenAPI description, liveness (/healthz: the
 * process runs, nothing else asked), readiness (/readyz: database and bus), and JSON 404s.
 */
export const ApiRouter = HttpRouter.use(Effect.fnUntraced(function*(router) {
  // Runs before the route lookup, which finds nothing for a path it cannot decode.
  yield* router.addGlobalMiddleware((app) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      isDecodablePath(request.url) ? app : request.url.startsWith("/v1/") ? undecodableV1Path : Effect.succeed(undecodablePath)))
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

/**
 * Serves the router on a Node HTTP server at host:port. A path parameter may be as long as Node
 * lets a request line be (the router's default of 100 answered longer ids an empty 404): the
 * schema of the parameter then says what is wrong with it.
 */
export const ApiServerLayer = (host: string, port: number) =>
  HttpRouter.serve(ApiRouter, { disableLogger: true, disableListenLog: true, routerConfig: { maxParamLength: 16 * 1024 } }).pipe(
    Layer.provide(NodeHttpServer.layer(() => answerClientErrors(createServer()), { port, host }))
  )
