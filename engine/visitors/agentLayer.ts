import { AI_USER_FETCHERS } from "./aiAgents.ts"
import { verdict, type Verdict } from "./verdict.ts"

const VENDOR_TOKENS = AI_USER_FETCHERS.map((fetcher) => ({ fetcher, pattern: new RegExp(fetcher.pattern, "i") }))

/**
 * `<Vendor>-User` is the naming convention the AI vendors settled on for their
 * user-triggered fetchers (OpenAI, Anthropic, Perplexity, Mistral, Amazon, Manus, Kimi),
 * so a new vendor following it is counted without a code change. Case-sensitive and not
 * followed by `-` so that ordinary text such as "X-User-Agent" cannot match.
 */
const USER_FETCHER_CONVENTION = /\b[A-Za-z][A-Za-z0-9]*-User\b(?!-)/

/**
 * Layer 1: AI fetchers acting on one person's request, by their vendors' documented tokens.
 * First, because the other layers would call every one of them a bot.
 */
export const agentLayer = (userAgent: string): Verdict | undefined => {
  for (const { fetcher, pattern } of VENDOR_TOKENS) {
    const match = pattern.exec(userAgent)
    if (match !== null) return verdict("agent", "agent-vendor", `${match[0]} (${fetcher.vendor}: ${fetcher.source})`)
  }
  const convention = USER_FETCHER_CONVENTION.exec(userAgent)
  if (convention !== null) return verdict("agent", "agent-convention", convention[0])
  return undefined
}
