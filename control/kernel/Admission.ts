import { Context } from "effect"
import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import { Forbidden, PlanRequired, RateLimitExceeded, ServiceUnavailable, Unauthorized } from "./errors.ts"
import { CurrentPrincipal } from "./Principal.ts"
/**
 * Every /v1 request is admitted before anything else: the API key or the session cookie is looked
 * up (a request without a valid one is counted against its client address, so a client guessing
 * keys is slowed to ANONYMOUS_LIMIT a minute), counted against the workspace's allowances, and
 * refused when a read-only key writes, when a cookie request that changes something comes from
 * another origin (CSRF), when a session signed in with a one-time password asks for anything but
 * the password change, or when a key's workspace plan lacks the API. Every answer, errors
 * included, carries the RateLimit headers of the allowance the request was counted in.
 */

/** Which allowance a request counts against, besides the workspace's general one. */
export type AllowanceKind = "general" | "analytics" | "anonymous"

/** Annotation of a group or endpoint whose requests also count against the analytics allowance. */
export const CountsAsAnalytics = Context.Reference<boolean>("ricochet/CountsAsAnalytics", { defaultValue: () => false })

/**
 * Annotation of an endpoint a session signed in with a one-time password may call: reading the
 * session, signing out, choosing the new password. Every other request of such a session is 403.
 */
export const OpenBeforePasswordChange = Context.Reference<boolean>("ricochet/OpenBeforePasswordChange", { defaultValue: () => false })

export class Admission extends HttpApiMiddleware.Service<Admission, { provides: CurrentPrincipal }>()("ricochet/Admission", {
  security: { bearer: HttpApiSecurity.bearer.pipe(HttpApiSecurity.annotate(OpenApi.Description, "An API key of the workspace: rico_ followed by base62 characters")) },
  error: [Unauthorized.response, RateLimitExceeded.response, Forbidden.response, PlanRequired.response, ServiceUnavailable.response]
}) {}

// The implementation (keys, sessions, rate limits) is control/http/AdmissionLayer.ts: this file is part of the
// declaration, which the typed client and the dashboard load in a browser.

/**
 * Signing in has no credential yet: the request is counted against its client address (and
 * refused past ANONYMOUS_LIMIT) before its body is read, so every answer, a body that cannot be
 * read included, carries the RateLimit headers.
 */
export class CountedByAddress extends HttpApiMiddleware.Service<CountedByAddress>()("ricochet/CountedByAddress", {
  // Unauthorized only by type: counting by address refuses with 429 or 503, never 401.
  error: [Unauthorized.response, RateLimitExceeded.response, ServiceUnavailable.response]
}) {}

