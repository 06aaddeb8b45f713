import { agentLayer } from "./agentLayer.ts"
import { botListLayer } from "./botListLayer.ts"
import { browserLayer, identifyBrowser } from "./browserLayer.ts"
import { fallbackLayer } from "./fallbackLayer.ts"
import { verdict, type Verdict } from "./verdict.ts"

const HAS_NON_SPACE = /\S/

/**
 * No browser sends a User-Agent this long (the longest among some 50,000 real browsers' strings
 * in public test collections is about 420 characters), and the cost of reading one grows with
 * its length, so a longer one is a bot without being read.
 */
export const MAX_USER_AGENT_LENGTH = 1024

/**
 * The audience of a User-Agent and the rule that decided it, layer by layer
 * (docs/decisions.md#who-clicked):
 * 1. AI agents by their vendors' documented tokens;
 * 2. positive identification of a browser (engine, OS, device from ua-parser-js): on a known
 *    platform it is a person unless a bot names itself where software does (a product token, not
 *    a device or platform name) or signs with a URL or an address;
 * 3. the bot lists: probes, monitors, renderers, feed readers, HTTP libraries, automation,
 *    Google's crawlers, then isbot;
 * 4. what is left is a person if it is browser-shaped or an app's request from a device the
 *    parser knows, else a bot.
 * Pure: the same string always gets the same verdict.
 */
export const classifyUserAgent = (userAgent: string): Verdict => {
  if (!HAS_NON_SPACE.test(userAgent)) return verdict("bot", "empty", "")
  if (userAgent.length > MAX_USER_AGENT_LENGTH) return verdict("bot", "oversized", `${userAgent.length} characters`)
  const agent = agentLayer(userAgent)
  if (agent !== undefined) return agent
  const identity = identifyBrowser(userAgent)
  return browserLayer(userAgent, identity) ?? botListLayer(userAgent) ?? fallbackLayer(userAgent, identity)
}
