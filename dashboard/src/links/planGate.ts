import { checkLinkPlan } from "../../../control/links/linkInput.ts"
import type { LinkUpdate } from "../../../control/links/schema.ts"
import type { Session } from "../api/workspaceCalls.ts"

/**
 * Why a link field is unavailable on this plan, in the server's own words (the same rule the
 * API applies), or undefined when the plan has it.
 */
export const linkFieldGate = (session: Session, input: LinkUpdate): string | undefined =>
  checkLinkPlan(session.workspace.plan, input)?.message

const SAMPLE_URL = "https://example.com/"

/** Each gated field of the editor, asked with a sample value. */
export const linkGates = (session: Session) => ({
  geo: linkFieldGate(session, { geoRules: [{ country: "US", url: SAMPLE_URL }] }),
  device: linkFieldGate(session, { deviceRules: [{ device: "ios", url: SAMPLE_URL }] }),
  expiry: linkFieldGate(session, { expiresAt: "2030-01-01T00:00:00Z" }),
  password: linkFieldGate(session, { password: "x" }),
  openInApp: linkFieldGate(session, { openInApp: true }),
  openInBrowser: linkFieldGate(session, { openInBrowser: true }),
  ab: linkFieldGate(session, { abTest: { variants: [{ url: SAMPLE_URL, weight: 50 }, { url: SAMPLE_URL, weight: 50 }], endsAt: null } })
})
