import { Clock, Context, Effect, Layer, Option } from "effect"
import { HttpEffect, HttpServerRequest, HttpServerResponse } from "effect/http"
import { ProxySettings } from "../../shared/settings/ProxySettings.ts"
import { SessionSettings } from "../sessions/SessionSettings.ts"
import { Database } from "../../shared/db/Database.ts"
import { forwardedClient } from "../../shared/http/forwarded.ts"
import { bearerToken, hashApiKey, looksLikeApiKey } from "../auth/apiKeys.ts"
import { lastUseRecorder } from "../auth/lastUsed.ts"
import { SESSION_COOKIE, SESSION_TOKEN } from "../sessions/cookie.ts"
import { isUnsafeMethod, originAllowed } from "../sessions/csrf.ts"
import { findSession } from "../sessions/sessions.ts"
import { query } from "../db/sql.ts"
import { API_PLAN, requirePlan } from "../kernel/plans.ts"
import {
  type Allowance,
  ANALYTICS_LIMIT,
  ANONYMOUS_LIMIT,
  type Bucket,
  GENERAL_LIMIT,
  hit,
  rateLimitHeaders
} from "../ratelimit/rateLimiter.ts"
import { Forbidden, RateLimitExceeded, Unauthorized } from "../kernel/errors.ts"
import { Admission, type AllowanceKind, CountedByAddress, CountsAsAnalytics, OpenBeforePasswordChange } from "../kernel/Admission.ts"
import { CurrentPrincipal, type Principal } from "../kernel/Principal.ts"

/** The client address, from X-Forwarded-For only when the operator says a proxy sets it. */
export const clientAddress = (request: HttpServerRequest.HttpServerRequest, trustProxy: boolean): string => {
  if (trustProxy) {
    const forwarded = forwardedClient(request.headers["x-forwarded-for"])
    if (forwarded !== undefined) return forwarded
  }
  return Option.getOrElse(request.remoteAddress, () => "unknown")
}

interface KeyPrincipalRow {
  key_id: string
  workspace_id: string
  user_id: string
  role: "admin" | "member"
  scope: "all" | "read"
  plan: Principal["plan"]
}

const keyUseDue = lastUseRecorder()
const sessionUseDue = lastUseRecorder()

/**
 * The key's principal: its own role, but never more than its user's membership grants (a key
 * made by an admin who has since become a member acts as a member). Looked up on every request,
 * so a revoked key is refused by every control process at once.
 */
const findKeyPrincipal = (key: string) =>
  query((sql) =>
    sql<KeyPrincipalRow[]>`
      SELECT k.id AS key_id, k.workspace_id, k.user_id, k.scope, w.plan,
        CASE WHEN k.role = 'admin' AND m.role = 'admin' THEN 'admin' ELSE 'member' END AS role
      FROM api_keys k
      JOIN workspaces w ON w.id = k.workspace_id
      JOIN memberships m ON m.workspace_id = k.workspace_id AND m.user_id = k.user_id
      WHERE k.key_hash = ${hashApiKey(key)} AND k.revoked_at IS NULL`
  ).pipe(Effect.flatMap(([row]) => {
    if (row === undefined) return Effect.succeed(undefined)
    const principal: Principal = {
      via: "key",
      credentialId: row.key_id,
      workspaceId: row.workspace_id,
      userId: row.user_id,
      role: row.role,
      plan: row.plan,
      scope: row.scope,
      mustChangePassword: false
    }
    const touch = keyUseDue(row.key_id)
      ? query((sql) => sql`UPDATE api_keys SET last_used_at = now() WHERE id = ${row.key_id}`)
      : Effect.void
    return Effect.as(touch, principal)
  }))

const findSessionPrincipal = (token: string) =>
  Effect.gen(function*() {
    const { sessionIdleHours } = yield* SessionSettings
    if (!SESSION_TOKEN.test(token)) return undefined
    const row = yield* query((sql) => findSession(sql, token, sessionIdleHours))
    if (row === undefined) return undefined
    if (sessionUseDue(row.session_id)) {
      yield* query((sql) => sql`UPDATE sessions SET last_seen_at = now() WHERE id = ${row.session_id}`)
    }
    const principal: Principal = {
      via: "session",
      credentialId: row.session_id,
      workspaceId: row.workspace_id,
      userId: row.user_id,
      role: row.role,
      plan: row.plan,
      scope: "all",
      mustChangePassword: row.must_change_password
    }
    return principal
  })

/** The caller, by key (Authorization wins when both are sent) or by session cookie. */
const identify = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const token = bearerToken(request.headers["authorization"])
  if (token !== undefined) {
    const principal = looksLikeApiKey(token) ? yield* findKeyPrincipal(token) : undefined
    return principal ?? new Unauthorized({ message: "The API key is not valid" })
  }
  const cookie = request.cookies[SESSION_COOKIE]
  if (cookie !== undefined && cookie !== "") {
    const principal = yield* findSessionPrincipal(cookie)
    return principal ?? new Unauthorized({ message: "The session has ended or is not valid; sign in again" })
  }
  return new Unauthorized({ message: "Send an API key as Authorization: Bearer rico_…, or sign in (POST /v1/sessions)" })
})

/**
 * What the caller may not do whatever its allowance: a read key writing, a cookie request from
 * another origin, a session with a one-time password doing anything but replacing it.
 */
const refusal = (principal: Principal, openBeforePasswordChange: boolean) =>
  Effect.gen(function*() {
    const { publicOrigin } = yield* SessionSettings
    const request = yield* HttpServerRequest.HttpServerRequest
    if (principal.via === "session" && !originAllowed(request.method, request.headers["origin"], request.headers["host"], publicOrigin)) {
      return new Forbidden({ message: "A signed-in request that changes something must come from this site (its Origin header does not match)" })
    }
    if (principal.scope === "read" && isUnsafeMethod(request.method)) {
      return new Forbidden({ message: "This API key may only read (GET)" })
    }
    if (principal.mustChangePassword && !openBeforePasswordChange) {
      return new Forbidden({ message: "You signed in with a one-time password: choose a new password first (POST /v1/me/password)" })
    }
    return undefined
  })

const countHit = (buckets: ReadonlyArray<Bucket>) => Effect.flatMap(Clock.currentTimeMillis, (now) => query((sql) => hit(sql, buckets, now)))

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
    const { trustProxy } = yield* ProxySettings
    const request = yield* HttpServerRequest.HttpServerRequest
    const [address] = yield* countHit([{ key: `addr:${clientAddress(request, trustProxy)}`, limit: ANONYMOUS_LIMIT }])
    yield* reportAllowance(address)
    if (address.exceeded) return yield* tooMany(address)
    if (refusal !== undefined) return yield* refusal
  })

/** Counts a request that needs no credential (signing in) against its client address. */
export const admitAnonymous = Effect.asVoid(anonymous(undefined))

/**
 * Admits the current request: the caller, or (for "anonymous": public documents) nobody, once it
 * has been counted. Used by the Admission middleware and the routes outside the HttpApi;
 * `openBeforePasswordChange` for the endpoints annotated so (see Admission.ts).
 */
export const admit = (kind: AllowanceKind, openBeforePasswordChange = false) =>
  Effect.gen(function*() {
    if (kind === "anonymous") return yield* Effect.as(anonymous(undefined), undefined)
    const principal = yield* identify
    if (principal instanceof Unauthorized) return yield* anonymous(principal)

    const buckets: Array<Bucket> = [{ key: `ws:${principal.workspaceId}`, limit: GENERAL_LIMIT }]
    if (kind === "analytics") buckets.push({ key: `ws:${principal.workspaceId}:analytics`, limit: ANALYTICS_LIMIT })
    const [general, analytics] = yield* countHit(buckets)
    // On analytics requests the headers describe the analytics allowance, unless the general one ran out.
    yield* reportAllowance(general.exceeded || analytics === undefined ? general : analytics)
    const exceeded = general.exceeded ? general : analytics?.exceeded ? analytics : undefined
    if (exceeded !== undefined) return yield* tooMany(exceeded)
    const refused = yield* refusal(principal, openBeforePasswordChange)
    if (refused !== undefined) return yield* refused
    // Plans gate the API for keys; signed in, people use every plan's workspace (its features
    // and limits still apply).
    if (principal.via === "key") {
      const denied = requirePlan(principal.plan, API_PLAN, "The API")
      if (denied !== undefined) return yield* denied
    }
    return principal
  })

export const AdmissionLayer = Layer.effect(Admission)(Effect.gen(function*() {
  const sessionSettings = yield* SessionSettings
  const proxySettings = yield* ProxySettings
  const database = yield* Database
  return {
    // The key is read from the header as bearerToken reads it; the scheme is declared for the document.
    bearer: (httpEffect, { endpoint, group }) => {
      const analytics = Context.get(endpoint.annotations, CountsAsAnalytics) || Context.get(group.annotations, CountsAsAnalytics)
      return admit(analytics ? "analytics" : "general", Context.get(endpoint.annotations, OpenBeforePasswordChange)).pipe(
        Effect.provideService(SessionSettings, sessionSettings),
        Effect.provideService(ProxySettings, proxySettings),
        Effect.provideService(Database, database),
        Effect.flatMap((principal) => Effect.provideService(httpEffect, CurrentPrincipal, principal!))
      )
    }
  }
}))

export const CountedByAddressLayer = Layer.effect(CountedByAddress)(Effect.gen(function*() {
  const proxySettings = yield* ProxySettings
  const database = yield* Database
  return (httpEffect) =>
    Effect.andThen(
      admitAnonymous.pipe(Effect.provideService(ProxySettings, proxySettings), Effect.provideService(Database, database)),
      httpEffect
    )
}))

