import { HttpApiMiddleware } from "effect/http-api"
import { Forbidden } from "../kernel/errors.ts"

/**
 * Signing in from a page of another site is refused (403) before the body is read: see
 * signInOriginAllowed in csrf.ts. Declared here, implemented in SignInOriginLayer.ts: this file is
 * part of the declaration, which the typed client and the dashboard load in a browser.
 */
export class SignInOrigin extends HttpApiMiddleware.Service<SignInOrigin>()("ricochet/SignInOrigin", {
  error: Forbidden.response
}) {}
