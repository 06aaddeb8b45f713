import { Context } from "effect"
import type { Plan } from "./plans.ts"

/**
 * Who is calling: resolved from the API key or the session cookie before any handler runs. A
 * session acts as its user in the workspace it has chosen; a key as its user with its own role
 * and scope.
 */
/** What a member may do in a workspace: admins also manage people, keys, domains and webhooks. */
export type Role = "admin" | "member"

export interface Principal {
  readonly via: "key" | "session"
  /** The key's id, or the session's. */
  readonly credentialId: string
  readonly workspaceId: string
  readonly userId: string
  readonly role: Role
  readonly plan: Plan
  /** `read`: every method but GET is refused. Sessions are `all`. */
  readonly scope: "all" | "read"
  /**
   * A session of a user whose password is a one-time one: admitted only to the endpoints annotated
   * OpenBeforePasswordChange. Never set for keys: a key is not the password.
   */
  readonly mustChangePassword: boolean
}

/** The caller of the request being handled, provided by the Admission middleware. */
export class CurrentPrincipal extends Context.Service<CurrentPrincipal, Principal>()("ricochet/CurrentPrincipal") {}
