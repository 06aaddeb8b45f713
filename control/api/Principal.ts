import { Context } from "effect"
import type { Plan } from "../plans/plans.ts"

/** Who is calling: resolved from the API key before any handler runs. */
export interface Principal {
  readonly keyId: string
  readonly workspaceId: string
  readonly userId: string
  readonly role: "admin" | "member"
  readonly plan: Plan
}

/** The caller of the request being handled, provided by the Admission middleware. */
export class CurrentPrincipal extends Context.Service<CurrentPrincipal, Principal>()("ricochet/CurrentPrincipal") {}
