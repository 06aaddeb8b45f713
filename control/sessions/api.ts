import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { CountedByAddress, OpenBeforePasswordChange } from "../kernel/Admission.ts"
import { Forbidden, RateLimitExceeded, ServiceUnavailable, Unauthorized } from "../kernel/errors.ts"
import { DatabaseUnavailable } from "../kernel/DatabaseUnavailable.ts"
import { requestBody, RequestChecks } from "../kernel/RequestChecks.ts"
import { NotAMember } from "./errors.ts"
import { Session, SignedOut, SignIn, SwitchWorkspace } from "./schema.ts"
import { SignInOrigin } from "./SignInOrigin.ts"

/**
 * POST /v1/sessions: signing in. Outside the Admission middleware (nobody is signed in yet):
 * counted per client address like other requests without a credential, refused from a page of
 * another site (login CSRF), and wrong passwords limited per account and per address.
 */
export const SignInApi = HttpApiGroup.make("signIn")
  .annotate(OpenApi.Description, "Signing in with an email and a password: the session is an HttpOnly cookie")
  .add(
    HttpApiEndpoint.post("signIn", "/sessions", {
      payload: requestBody(SignIn),
      success: Session.pipe(HttpApiSchema.status(201)),
      error: [Unauthorized.response, Forbidden.response, NotAMember.response, RateLimitExceeded.response, ServiceUnavailable.response]
    }).middleware(RequestChecks).annotate(
      OpenApi.Description,
      "Signs in and sets the `ricochet_session` cookie (HttpOnly, SameSite=Lax, Path=/, Secure over https). The session acts " +
        "in `workspaceId`, or the user's first workspace. Five wrong passwords a minute for an account or from an address, " +
        "then 429 with Retry-After until the minute ends. An `Origin` header that is not this site's (or `null`), or no " +
        "Origin with `Sec-Fetch-Site` naming another site, is 403. Signed in with a one-time password, the Session says " +
        "`mustChangePassword: true` and the session may only choose a new password (POST /v1/me/password), read itself " +
        "and sign out."
    ).annotate(OpenApi.Summary, "Sign in")
  )
  // The last added runs first: counted by address, then the Origin check, then the body.
  .middleware(SignInOrigin)
  .middleware(CountedByAddress)

/** /v1/sessions/current: the signed-in session (a key has none: 401). */
export const SessionsApi = HttpApiGroup.make("sessions")
  .annotate(OpenApi.Description, "The signed-in session: who, which workspace, switching workspace, signing out")
  .add(
    HttpApiEndpoint.get("current", "/sessions/current", { success: Session })
      .annotate(OpenBeforePasswordChange, true)
      .annotate(OpenApi.Summary, "The current session")
  )
  .add(
    HttpApiEndpoint.patch("switch", "/sessions/current", {
      payload: requestBody(SwitchWorkspace),
      success: Session,
      error: NotAMember.response
    }).middleware(RequestChecks).annotate(OpenApi.Summary, "Switch the session to another of the user's workspaces")
  )
  .add(
    HttpApiEndpoint.delete("signOut", "/sessions/current", { success: SignedOut })
      .annotate(OpenBeforePasswordChange, true)
      .annotate(OpenApi.Summary, "Sign out: the session ends and the cookie is cleared")
  )
