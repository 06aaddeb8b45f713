import { Cause, Effect, Option, Schema } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { bearerToken, hashApiKey, looksLikeApiKey } from "../auth/apiKeys.ts"
import { Configuration } from "../../shared/config.ts"
import { type DatabaseError } from "../../shared/db/Database.ts"
import { query } from "../db/query.ts"
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
import { ApiError, apiError, toErrorBody } from "./ApiError.ts"
import { readBody } from "./body.ts"
import { coerce, parseFormText } from "./form.ts"
import { toFieldIssues } from "./issues.ts"
import { findUnsafeText } from "./nul.ts"
import type { ApiServices, Principal, Route } from "./route.ts"
import { forwardedClient } from "../../shared/http/forwarded.ts"

type Env = ApiServices

const json = (status: number, body: unknown, headers: Record<string, string>) =>
  HttpServerResponse.jsonUnsafe(body, { status, headers })

export const errorResponse = (error: ApiError, headers: Record<string, string> = {}) =>
  json(error.status, toErrorBody(error), error.retryAfterSeconds === undefined ? headers : { ...headers, "retry-after": String(error.retryAfterSeconds) })

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
  query(async (sql) => {
    const [row] = await sql<PrincipalRow[]>`
      SELECT k.id AS key_id, k.workspace_id, k.user_id, m.role, w.plan
      FROM api_keys k
      JOIN workspaces w ON w.id = k.workspace_id
      JOIN memberships m ON m.workspace_id = k.workspace_id AND m.user_id = k.user_id
      WHERE k.key_hash = ${hashApiKey(key)} AND k.revoked_at IS NULL`
    return row === undefined
      ? undefined
      : { keyId: row.key_id, workspaceId: row.workspace_id, userId: row.user_id, role: row.role, plan: row.plan }
  })

const countHit = (buckets: ReadonlyArray<Bucket>) => query((sql) => hit(sql, buckets))

/**
 * Who may proceed, and the allowance to report. A request without a valid key is counted against
 * its address, so a client guessing keys is slowed to ANONYMOUS_LIMIT a minute.
 */
const admit = (request: HttpServerRequest.HttpServerRequest, allowance: "general" | "analytics" | "anonymous") =>
  Effect.gen(function*() {
    const config = yield* Configuration
    const anonymous = (error: ApiError | undefined) =>
      Effect.gen(function*() {
        const [address] = yield* countHit([{ key: `addr:${clientAddress(request, config.trustProxy)}`, limit: ANONYMOUS_LIMIT }])
        return { principal: undefined, allowance: address, error: address.exceeded ? tooMany(address) : error }
      })
    if (allowance === "anonymous") return yield* anonymous(undefined)
    const token = bearerToken(request.headers["authorization"])
    if (token === undefined) {
      return yield* anonymous(apiError("unauthorized", "Send an API key as Authorization: Bearer rico_…"))
    }
    const principal = looksLikeApiKey(token) ? yield* findPrincipal(token) : undefined
    if (principal === undefined) return yield* anonymous(apiError("unauthorized", "The API key is not valid"))

    const buckets: Array<Bucket> = [{ key: `ws:${principal.workspaceId}`, limit: GENERAL_LIMIT }]
    if (allowance === "analytics") buckets.push({ key: `ws:${principal.workspaceId}:analytics`, limit: ANALYTICS_LIMIT })
    const [general, analytics] = yield* countHit(buckets)
    // On analytics requests the headers describe the analytics allowance, unless the general one ran out.
    const reported: Allowance = general.exceeded || analytics === undefined ? general : analytics
    const exceeded = general.exceeded ? general : analytics?.exceeded ? analytics : undefined
    return {
      principal,
      allowance: reported,
      error: exceeded !== undefined ? tooMany(exceeded) : requirePlan(principal.plan, API_PLAN, "The API")
    }
  })

const tooMany = (allowance: Allowance) =>
  apiError("rate_limit_exceeded", `Rate limit of ${allowance.limit} requests per minute exceeded; retry in ${allowance.reset} s`)

const decodeWith = <A>(schema: Schema.Codec<A, any, never, never>, value: unknown, excess: "error" | "ignore", prefix: ReadonlyArray<string>) =>
  Effect.mapError(
    Schema.decodeUnknownEffect(schema, { onExcessProperty: excess, errors: "all" })(value),
    (error) => {
      const issues = toFieldIssues(error.issue, prefix)
      const first = issues[0]
      const where = first === undefined || first.path.length === 0 ? "" : ` at ${first.path.join(".")}`
      return apiError("unprocessable_entity", `Invalid request${where}: ${first?.message ?? "invalid value"}`, issues)
    }
  )

/** Decoded input that PostgreSQL can store as sent: a NUL or a lone surrogate is a 422 at its field. */
const storable = <A>(value: A): Effect.Effect<A, ApiError> => {
  const issue = findUnsafeText(value)
  if (issue === undefined) return Effect.succeed(value)
  const where = issue.path.length === 0 ? "" : ` at ${issue.path.join(".")}`
  return Effect.fail(apiError("unprocessable_entity", `Invalid request${where}: ${issue.message}`, [issue]))
}

/** The query string of a request target (the fragment is never sent). */
const searchOf = (url: string): string => {
  const start = url.indexOf("?")
  return start === -1 ? "" : url.slice(start + 1)
}

const decodeQuery = <A>(schema: Schema.Codec<A, any, never, never>, url: string) =>
  Effect.gen(function*() {
    const tree = yield* Effect.try({
      try: () => parseFormText(searchOf(url), "query string"),
      catch: (error) => (error instanceof ApiError ? error : apiError("bad_request", "The query string cannot be read"))
    })
    // Query parameters other than the declared ones are ignored: caches and proxies add their own.
    return yield* Effect.flatMap(decodeWith(schema, coerce(schema.ast, tree), "ignore", []), storable)
  })

const decodeBody = <A>(schema: Schema.Codec<A, any, never, never>, request: HttpServerRequest.HttpServerRequest) =>
  Effect.flatMap(readBody(request), (raw) =>
    Effect.flatMap(decodeWith(schema, raw.kind === "form" ? coerce(schema.ast, raw.value) : raw.value, "error", []), storable))

/** Every unexpected failure: logged with its cause, answered as a bare 500. */
const internalError = (cause: Cause.Cause<unknown>, request: HttpServerRequest.HttpServerRequest) =>
  Effect.as(
    Effect.logError(`${request.method} ${request.url} failed`, cause),
    apiError("internal_server_error", "Something went wrong on our side; it has been logged")
  )

const settle = <E>(
  effect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, Env>,
  request: HttpServerRequest.HttpServerRequest,
  headers: () => Record<string, string>
) =>
  effect.pipe(
    Effect.catchCause((cause) => {
      const failure = Cause.findErrorOption(cause)
      const known = Option.isSome(failure) && failure.value instanceof ApiError ? Effect.succeed(failure.value) : internalError(cause, request)
      return Effect.map(known, (error) => errorResponse(error, headers()))
    })
  )

/**
 * Admits the request (key, rate limits, plan), runs `then` with the caller, and answers; every
 * response, errors included, carries the rate-limit headers of the allowance it was counted in.
 */
const admitted = (
  allowance: "general" | "analytics" | "anonymous",
  then: (principal: Principal | undefined, request: HttpServerRequest.HttpServerRequest, headers: Record<string, string>) => Effect.Effect<HttpServerResponse.HttpServerResponse, ApiError | DatabaseError, Env>
) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    let headers: Record<string, string> = {}
    const handled = Effect.gen(function*() {
      const outcome = yield* admit(request, allowance)
      headers = rateLimitHeaders(outcome.allowance)
      if (outcome.error !== undefined) return yield* outcome.error
      return yield* then(outcome.principal, request, headers)
    })
    return yield* settle(handled, request, () => headers)
  })

/** The whole life of an API request: admit, authorise, validate, handle, answer. */
export const runRoute = (route: Route, params: Readonly<Record<string, string | undefined>>) =>
  admitted(route.allowance ?? "general", (admittedPrincipal, request, headers) =>
    Effect.gen(function*() {
      const principal = admittedPrincipal!
      if (route.access === "admin" && principal.role !== "admin") {
        return yield* apiError("forbidden", "This operation needs an admin's API key")
      }
      const decodedParams = route.params ? yield* Effect.flatMap(decodeWith(route.params, params, "error", []), storable) : {}
      const decodedQuery = route.query ? yield* decodeQuery(route.query, request.url) : {}
      const body = route.body ? yield* decodeBody(route.body, request) : undefined
      const result = yield* route.handler({ principal, params: decodedParams, query: decodedQuery, body, request })
      return json(route.status, result, headers)
    }))

/** Paths under /v1 that match no route: still authenticated and counted, then 404. */
export const unknownRoute = admitted("general", (_principal, request) =>
  Effect.fail(apiError("not_found", `No endpoint ${request.method} ${new URL(request.url, "http://localhost").pathname}`)))

/**
 * A /v1 path that is not percent-encoded UTF-8 (`/v1/links/%ff`): the router cannot decode it to
 * find a route, so it is answered here, admitted and counted like any other call.
 */
export const undecodableV1Path = admitted("general", () =>
  Effect.fail(apiError("bad_request", "The request path is not percent-encoded UTF-8")))

/** Public documents (the OpenAPI description) are counted per address like other unauthenticated calls. */
export const publicRoute = (body: () => unknown) =>
  admitted("anonymous", (_principal, _request, headers) => Effect.succeed(json(200, body(), headers)))
