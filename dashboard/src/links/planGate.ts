import { checkLinkPlan } from "../../../control/links/linkInput.ts"
import type { LinkUpdate } from "../../../control/links/schema.ts"
import type { Session } from "../api/workspaceCalls.ts"

/**
 * Why a link field is unavailable on this plan, in the server's own words (the same rule the
 * API applies), or undefined when the plan has it.
 */
export const linkFieldGate = (session: Session, input: LinkUpdate): string | undefined =>
  checkLinkPlan(session.workspace.plan, input)?.message
