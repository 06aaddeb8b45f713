import { isbot } from "isbot"
import { AI_USER_FETCHERS } from "./aiAgents.ts"
import { AUTOMATION_CLIENTS } from "./automationClients.ts"
import { BoundedMemo } from "./boundedMemo.ts"
import { IN_APP_BROWSER_FAMILIES } from "./inAppBrowsers.ts"

/**
 * Who clicked (docs/decisions.md#who-clicked): `people` and `agent` clicks are recorded, `bot`
 * clicks never are. The label feeds the `people` / `agents` counts of the analytics.
 */
export type Audience = "people" | "agent" | "bot"

// Each list is compiled once into a single regex so a memo miss costs a handful of scans.
const AI_USER_FETCHER = new RegExp(AI_USER_FETCHERS.map((fetcher) => fetcher.pattern).join("|"), "i")

/**
 * `<Vendor>-User` is the naming convention the AI vendors settled on for their
 * user-triggered fetchers (OpenAI, Anthropic, Perplexity, Mistral, Amazon, Manus, Kimi),
 * so a new vendor following it is counted without a code change. Case-sensitive and not
 * followed by `-` so that ordinary text such as "X-User-Agent" cannot match.
 */
const USER_FETCHER_CONVENTION = /\b[A-Za-z][A-Za-z0-9]*-User\b(?!-)/

const AUTOMATION_CLIENT = new RegExp(AUTOMATION_CLIENTS.map((client) => client.pattern).join("|"))

const IN_APP_BROWSER = new RegExp(
  `^Mozilla/5\\.0 \\(.*(?:${IN_APP_BROWSER_FAMILIES.map((family) => family.token).join("|")})`
)
const IN_APP_DATA_FIELDS = new RegExp(
  IN_APP_BROWSER_FAMILIES.flatMap((family) => family.dataFields).join("|"),
  "g"
)

const HAS_NON_SPACE = /\S/

/** isbot's verdict, asked again without the fields an in-app browser appends as data. */
const looksLikeBot = (userAgent: string): boolean =>
  isbot(userAgent) &&
  (!IN_APP_BROWSER.test(userAgent) || isbot(userAgent.replace(IN_APP_DATA_FIELDS, " ")))

const memo = new BoundedMemo<Audience>(4096)

const classifyUserAgent = (userAgent: string): Audience => {
  if (!HAS_NON_SPACE.test(userAgent)) return "bot"
  // Agents first: isbot flags ChatGPT-User and friends as bots too.
  if (AI_USER_FETCHER.test(userAgent) || USER_FETCHER_CONVENTION.test(userAgent)) return "agent"
  if (AUTOMATION_CLIENT.test(userAgent) || looksLikeBot(userAgent)) return "bot"
  return "people"
}

/**
 * Classify a visitor. `signatureAgent` is the raw `Signature-Agent` request header
 * (Web Bot Auth): only automated agents send it, and the design counts every such request as
 * an agent whatever its User-Agent says. The header is not verified here; like the
 * User-Agent it is a claim, and it only decides which counter a click goes to.
 */
export const classifyAudience = (
  userAgent: string | undefined,
  signatureAgent: string | undefined
): Audience => {
  if (signatureAgent !== undefined && HAS_NON_SPACE.test(signatureAgent)) return "agent"
  if (userAgent === undefined || userAgent.length === 0) return "bot"
  const known = memo.get(userAgent)
  if (known !== undefined) return known
  const audience = classifyUserAgent(userAgent)
  memo.set(userAgent, audience)
  return audience
}

/** For tests and benchmarks that need a cold memo. */
export const clearAudienceMemo = (): void => memo.clear()
