import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Effect, Layer, Predicate, type Types } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder, HttpApiScalar, OpenApi } from "effect/http-api"
import { createServer } from "node:http"
import { ProxySettings } from "../../shared/settings/ProxySettings.ts"
import { SessionSettings } from "../sessions/SessionSettings.ts"
import { RequestLogSettings } from "./RequestLogSettings.ts"
import { Database } from "../../shared/db/Database.ts"
import { AnalyticsHandlers } from "./handlers/analytics.ts"
import { AdminOnlyLayer } from "../kernel/AdminOnly.ts"
import type { AllowanceKind } from "../kernel/Admission.ts"
import { admit, AdmissionLayer, CountedByAddressLayer } from "./AdmissionLayer.ts"
import { Api } from "../api/Api.ts"
import type { DatabaseUnavailable } from "../kernel/DatabaseUnavailable.ts"
import { BadRequest, NotFound, ServiceUnavailable } from "../kernel/errors.ts"
import { RequestChecksLayer } from "./RequestChecksLayer.ts"
import { answerUnexpected, UnexpectedLayer } from "../kernel/Unexpected.ts"
import { DomainsHandlers } from "./handlers/domains.ts"
import { FolderRepositoryLayer } from "../folders/FolderRepository.ts"
import { FoldersHandlers } from "./handlers/folders.ts"
import { KeysHandlers } from "./handlers/keys.ts"
import { KeyRepositoryLayer } from "../keys/KeyRepository.ts"
import { InvitationsHandlers, MembersHandlers } from "./handlers/members.ts"
import { MemberServiceLayer } from "../members/MemberService.ts"
import { MeHandlers } from "./handlers/people.ts"
import { PasswordServiceLayer } from "../people/PasswordService.ts"
import { SessionsHandlers, SignInHandlers } from "./handlers/sessions.ts"
import { SessionServiceLayer } from "../sessions/SessionService.ts"
import { SignInOriginLayer } from "../sessions/SignInOriginLayer.ts"
import { LinksHandlers } from "./handlers/links.ts"
import { LinkRepositoryLayer } from "../links/LinkRepository.ts"
import { QrRendererLayer } from "../links/qr/QrRenderer.ts"
import { ImportJobRepositoryLayer } from "../links/import/ImportJobRepository.ts"
import { TagsHandlers } from "./handlers/tags.ts"
import { TagRepositoryLayer } from "../tags/TagRepository.ts"
import { dashboardRoute } from "../dashboard/route.ts"
import { liveEventsRoute } from "./liveRoute.ts"
import { WebhooksHandlers } from "./handlers/webhooks.ts"
import { WebhookRepositoryLayer } from "../webhooks/WebhookRepository.ts"
import { answerClientErrors } from "./clientError.ts"
import { readinessRoute } from "../ops/readiness.ts"
import { ReferencePageHeaders } from "./referencePageHeaders.ts"
import { sendNosniff } from "./securityHeaders.ts"
import { observeRequest } from "./requestObservation.ts"
import { answerWhileStarting } from "./startingUp.ts"
import { isDecodablePath } from "./requestPath.ts"

/** The /v1 endpoints of the HttpApi declaration, with their handlers, middleware and repositories. */
const ApiRoutes = HttpApiBuilder.layer(Api).pipe(
  Layer.provide([LinksHandlers, TagsHandlers, FoldersHandlers, DomainsHandlers, AnalyticsHandlers, WebhooksHandlers]),
  Layer.provide([SessionsHandlers, SignInHandlers, MeHandlers, KeysHandlers, MembersHandlers, InvitationsHandlers]),
  Layer.provide([PasswordServiceLayer, MemberServiceLayer]),
  Layer.provide([
    LinkRepositoryLayer, ImportJobRepositoryLayer, TagRepositoryLayer, FolderRepositoryLayer, WebhookRepositoryLayer,
    SessionServiceLayer, KeyRepositoryLayer, QrRendererLayer
  ]),
  Layer.provide([AdmissionLayer, CountedByAddressLayer, SignInOriginLayer, AdminOnlyLayer, RequestChecksLayer, UnexpectedLayer])
)

/**
 * Runs `answer` once the request is admitted and counted as `kind`: routes outside the HttpApi
 * (the documents, unknown and undecodable /v1 paths) are rate limited like the rest of /v1, and
 * answer failures (the ApiError classes answer themselves) with the RateLimit headers.
 */
const admitted = <E>(kind: AllowanceKind, answer: Effect.Effect<HttpServerResponse.HttpServerResponse, E, HttpServerRequest.HttpServerRequest>) =>
  Effect.gen(function*() {
    const sessionSettings = yield* SessionSettings
    const proxySettings = yield* ProxySettings
    const database = yield* Database
    return Effect.andThen(admit(kind), answer).pipe(
      Effect.provideService(SessionSettings, sessionSettings),
      Effect.provideService(ProxySettings, proxySettings),
      Effect.provideService(Database, database)
    )
  })

/**
 * A route outside the HttpApi (the documents, unknown /v1 paths, the live stream) whose admission
 * or query found the database unavailable answers the API's 503; inside the HttpApi the
 * endpoints' error lists do (ServiceUnavailable.response).
 */
const answerDatabaseUnavailable = <E, R>(effect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.catchIf(
    effect,
    (error): error is Extract<E, DatabaseUnavailable> => Predicate.isTagged(error, "DatabaseUnavailable"),
    () => Effect.succeed(ServiceUnavailable.answer())
  )

const pathOf = (url: string) => new URL(url, "http://localhost").pathname

const undecodable = "The request path is not percent-encoded UTF-8"

/** Metrics are for the operator port (control/http/adminServer.ts), not for whoever reaches the API. */
const metricsElsewhere = HttpServerResponse.jsonUnsafe(
  { error: { code: "not_found", message: "Metrics are served on control's operator port (RICOCHET_CONTROL_ADMIN_PORT, default 9465), not on the API port" } },
  { status: 404 }
)

/**
 * Everything else control serves: the OpenAPI document, unknown /v1 paths (still authenticated
 * and counted, then 404), paths the router cannot decode, liveness (/healthz: the process runs,
 * nothing else asked), readiness (/readyz: database and bus; also on the operator port, the only
 * one serving /metrics), and the dashboard everywhere else. A defect anywhere is logged and
 * answered 500 with the error body.
 */
const OtherRoutes = HttpRouter.use(Effect.fnUntraced(function*(router) {
  const undecodableV1Path = yield* admitted("general", Effect.fail(new BadRequest({ message: undecodable })))
  const observe = observeRequest({ ...(yield* RequestLogSettings), ...(yield* ProxySettings) })
  // Runs before the route lookup, which finds nothing for a path it cannot decode.
  yield* router.addGlobalMiddleware((app: Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled>) =>
    observe(answerUnexpected(
      answerDatabaseUnavailable(Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        if (isDecodablePath(request.url)) return yield* app
        if (request.url.startsWith("/v1/")) return yield* undecodableV1Path
        return HttpServerResponse.jsonUnsafe({ error: { code: "bad_request", message: undecodable } }, { status: 400 })
      })),
      (reason) => reason._tag !== "Die"
    )))
  let document: HttpServerResponse.HttpServerResponse | undefined
  yield* router.add("GET", "/v1/openapi.json", yield* admitted("anonymous", Effect.sync(() => (document ??= HttpServerResponse.jsonUnsafe(OpenApi.fromApi(Api))))))
  yield* router.add("GET", "/v1/events", yield* liveEventsRoute)
  yield* router.add(
    "*",
    "/v1/*",
    yield* admitted("general", Effect.flatMap(Effect.service(HttpServerRequest.HttpServerRequest), (request) =>
      Effect.fail(new NotFound({ message: `No endpoint ${request.method} ${pathOf(request.url)}` }))))
  )
  yield* router.add("GET", "/healthz", Effect.succeed(HttpServerResponse.jsonUnsafe({ status: "ok" })))
  yield* router.add("GET", "/readyz", readinessRoute)
  yield* router.add("GET", "/metrics", Effect.succeed(metricsElsewhere))
  yield* router.add("*", "*", yield* dashboardRoute)
}))

/** The API reference page at /v1/docs: Scalar's script from the effect package, no CDN; counted like the document. */
const ReferencePage = HttpApiScalar.layer(Api, { path: "/v1/docs", scalar: { withDefaultFonts: false } }).pipe(
  Layer.provide(HttpRouter.middleware(Effect.gen(function*() {
    const sessionSettings = yield* SessionSettings
    const proxySettings = yield* ProxySettings
    const database = yield* Database
    return (httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled>) =>
      Effect.andThen(admit("anonymous"), httpEffect).pipe(
        Effect.provideService(SessionSettings, sessionSettings),
        Effect.provideService(ProxySettings, proxySettings),
        Effect.provideService(Database, database)
      )
  })).layer),
  Layer.provide(ReferencePageHeaders)
)

/**
 * Serves the routes on a Node HTTP server at host:port. A path parameter may be as long as Node
 * lets a request line be (the router's default of 100 answered longer ids an empty 404): the
 * schema of the parameter then says what is wrong with it.
 */
export const ApiServerLayer = (host: string, port: number) =>
  HttpRouter.serve(Layer.mergeAll(ApiRoutes, OtherRoutes, ReferencePage), {
    disableLogger: true,
    disableListenLog: true,
    routerConfig: { maxParamLength: 16 * 1024 }
  }).pipe(
    Layer.provide(NodeHttpServer.layer(() => answerWhileStarting(answerClientErrors(sendNosniff(createServer()))), { port, host }))
  )
