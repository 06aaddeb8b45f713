import { Context, Effect, Layer, Option } from "effect"
import { HttpEffect, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import { Configuration } from "../../shared/config.ts"
import { Database } from "../../shared/db/Database.ts"
import { forwardedClient } from "../../shared/http/forwarded.ts"
import { bearerToken, hashApiKey, looksLikeApiKey } from "../auth/apiKeys.ts"
import { query } from "../db/sql.ts"
import { API_PLAN, requirePlan } from "../plans/plans.ts"
import {
  type Allowance,
  ANALYTICS_LIMIT,
  ANONYMOUS_LIMIT,
  type Bucket,
  GENERAL_LIMIT,
  hit,
  rateLimitHeaders
} from "../ratelimit/rateLimiter.ts"
import { PlanRequired, RateLimitExceeded, ServiceUnavailable, Unauthorized } from "./errors.ts"
import { CurrentPrincipal, type Principal } from "./Principal.ts"

/**
 * Every /v1 request is admitted before anything else: the API key is looked up (a request
 * without a valid one is counted against its client address, so a client guessing keys is slowed
 * to ANONYMOUS_LIMIT a minute), counted against the workspace's allowances, and refused when the
 * plan lacks the API. Every answer, errors included, carries the RateLimit headers of the
 * allowance the request was counted in.
 */

/** Which allowance a request counts against, besides the workspace's general one. */
export type AllowanceKind = "general" | "analytics" | "anonymous"

/** Annotation of a group or endpoint whose requests also count against the analytics allowance. */
export const CountsAsAnalytics = Context.Reference<boolean>("ricochet/CountsAsAnalytics", { defaultValue: () => false })

export class Admission extends HttpApiMiddleware.Service<Admission, { provides: CurrentPrincipal }>()("ricochet/Admission", {
  security: { bearer: HttpApiSecurity.bearer.pipe(HttpApiSecurity.annotate(OpenApi.Description, "An API key of the workspace: rico_ followed by base62 characters")) },
  error: [Unauthorized.response, RateLimitExceeded.response, PlanRequired.response, ServiceUnavailable.response]
}) {}

/** The client address, from X-Forwarded-For only when the operator says a proxy sets it. */
const clientAddress = (request: HttpServerRequest.HttpServerRequest, trustProxy: boolean): string => {
  if (trustProxy) {
    const forwarded = forwardedClient(request.headers["x-forwarded-for"])
    if (forwarded !== undefined) return forwarded
  }
  return Option.getOrElse(request.remoteAddress, () => "unknown")
}

interface PrincipalRow {
  key_id: string
  workspace_id: string
  user_id: string
  role: "admin" | "member"
  plan: Principal["plan"]
}

const findPrincipal = (key: string) =>
  query((sql) =>
    sql<PrincipalRow[]>`
      SELECT k.id AS key_id, k.workspace_id, k.user_id, m.role, w.plan
      FROM api_keys k
      JOIN workspaces w ON w.id = k.workspace_id
      JOIN memberships m ON m.workspace_id = k.workspace_id AND m.user_id = k.user_id
      WHERE k.key_hash = ${hashApiKey(key)} AND k.revoked_at IS NULL`
  ).pipe(Effect.map(([row]): Principal | undefined =>
    row === undefined
      ? undefined
      : { keyId: row.key_id, workspaceId: row.workspace_id, userId: row.user_id, role: row.role, plan: row.plan }
  ))

const countHit = (buckets: ReadonlyArray<Bucket>) => query((sql) => hit(sql, buckets))

/** The answer will carry these RateLimit headers, whatever it turns out to be. */
const reportAllowance = (allowance: Allowance) => {
  const headers = rateLimitHeaders(allowance)
  return HttpEffect.appendPreResponseHandler((_request, response) => Effect.succeed(HttpServerResponse.setHeaders(response, headers)))
}

const tooMany = (allowance: Allowance) =>
  new RateLimitExceeded({ message: `Rate limit of ${allowance.limit} requests per minute exceeded; retry in ${allowance.reset} s` })

/** A request without a valid key: counted per address, then `refusal` (or a 429 past the allowance). */
const anonymous = (refusal: Unauthorized | undefined) =>
  Effect.gen(function*() {
    const config = yield* Configuration
    const request = yield* HttpServerRequest.HttpServerRequest
    const [address] = yield* countHit([{ key: `addr:${clientAddress(request, config.trustProxy)}`, limit: ANONYMOUS_LIMIT }])
    yield* reportAllowance(address)
    if (address.exceeded) return yield* tooMany(address)
    if (refusal !== undefined) return yield* refusal
  })

/**
 * Admits the current request: the caller, or (for "anonymous": public documents) nobody, once it
 * has been counted. Used by the Admission middleware and the routes outside the HttpApi.
 */
export const admit = (kind: AllowanceKind) =>
  Effect.gen(function*() {
    if (kind === "anonymous") return yield* Effect.as(anonymous(undefined), undefined)
    const request = yield* HttpServerRequest.HttpServerRequest
    const token = bearerToken(request.headers["authorization"])
    if (token === undefined) return yield* anonymous(new Unauthorized({ message: "Send an API key as Authorization: Bearer rico_…" }))
    const principal = looksLikeApiKey(token) ? yield* findPrincipal(token) : undefined
    if (principal === undefined) return yield* anonymous(new Unauthorized({ message: "The API key is not valid" }))

    const buckets: Array<Bucket> = [{ key: `ws:${principal.workspaceId}`, limit: GENERAL_LIMIT }]
    if (kind === "analytics") buckets.push({ key: `ws:${principal.workspaceId}:analytics`, limit: ANALYTICS_LIMIT })
    const [general, analytics] = yield* countHit(buckets)
    // On analytics requests the headers describe the analytics allowance, unless the general one ran out.
    yield* reportAllowance(general.exceeded || analytics === undefined ? general : analytics)
    const exceeded = general.exceeded ? general : analytics?.exceeded ? analytics : undefined
    if (exceeded !== undefined) return yield* tooMany(exceeded)
    const denied = requirePlan(principal.plan, API_PLAN, "The API")
    if (denied !== undefined) return yield* denied
    return principal
  })

export const AdmissionLayer = Layer.effect(Admission)(Effect.gen(function*() {
  const config = yield* Configuration
  const database = yield* Database
  return {
    // The key is read from the header as bearerToken reads it; the scheme is declared for the document.
    bearer: (httpEffect, { endpoint, group }) => {
      const analytics = Context.get(endpoint.annotations, CountsAsAnalytics) || Context.get(group.annotations, CountsAsAnalytics)
      return admit(analytics ? "analytics" : "general").pipe(
        Effect.provideService(Configuration, config),
        Effect.provideService(Database, database),
        Effect.flatMap((principal) => Effect.provideService(httpEffect, CurrentPrincipal, principal!))
      )
    }
  }
}))
