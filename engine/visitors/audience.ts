import { LRUCache } from "lru-cache"
import { classifyUserAgent, MAX_USER_AGENT_LENGTH } from "./classifyUserAgent.ts"
import { verdict, type Audience, type Verdict } from "./verdict.ts"

export type { Audience, Verdict }

const HAS_NON_SPACE = /\S/

/**
 * Each distinct User-Agent is classified once: real traffic repeats a few hundred strings, and a
 * miss costs a parse and a few dozen regular expressions. Least recently used strings leave
 * first, so a burst of one-off strings (a scanner cycling User-Agents) does not push out the
 * browsers that keep coming back. Strings too long to classify are not kept.
 */
const memo = new LRUCache<string, Verdict>({ max: 4096 })

const SIGNED = verdict("agent", "signature-agent", "Signature-Agent header")
const MISSING = verdict("bot", "empty", "")

const explainUserAgent = (userAgent: string): Verdict => {
  const known = memo.get(userAgent)
  if (known !== undefined) return known
  const decided = classifyUserAgent(userAgent)
  if (userAgent.length <= MAX_USER_AGENT_LENGTH) memo.set(userAgent, decided)
  return decided
}

/**
 * Who a visitor is and the rule that decided it (docs/decisions.md#who-clicked).
 * `signatureAgent` is the raw `Signature-Agent` request header (Web Bot Auth): only automated
 * agents send it, and the design counts every such request as an agent whatever its User-Agent
 * says. The header is not verified here; like the User-Agent it is a claim, and it only decides
 * which counter a click goes to.
 */
export const explainAudience = (userAgent: string | undefined, signatureAgent: string | undefined): Verdict => {
  if (signatureAgent !== undefined && HAS_NON_SPACE.test(signatureAgent)) return SIGNED
  if (userAgent === undefined || userAgent.length === 0) return MISSING
  return explainUserAgent(userAgent)
}

/** The audience alone, for the click writer: `people` and `agent` clicks are recorded, `bot` clicks never are. */
export const classifyAudience = (userAgent: string | undefined, signatureAgent: string | undefined): Audience =>
  explainAudience(userAgent, signatureAgent).audience

/** For tests and benchmarks that need a cold memo. */
export const clearAudienceMemo = (): void => memo.clear()

/** How many User-Agents the memo holds (bounded by its size). */
export const audienceMemoSize = (): number => memo.size
