import { isbot, isbotMatch } from "isbot"
import { BOT_TOKENS } from "./botFamilies.ts"
import { withoutInAppDataFields } from "./inAppBrowsers.ts"
import { verdict, type Verdict } from "./verdict.ts"

const FAMILY_TOKENS = BOT_TOKENS.map((token) => ({ token, pattern: new RegExp(token.pattern, "i") }))
const ANY_FAMILY = new RegExp(BOT_TOKENS.map((token) => `(?:${token.pattern})`).join("|"), "i")

/** isbot's verdict, asked again without the fields an in-app browser appends as data. */
const listedByIsbot = (userAgent: string): boolean => isbot(userAgent) && isbot(withoutInAppDataFields(userAgent))

/**
 * Layer 3: the bot lists, for what layer 2 did not recognise as a browser on a known platform:
 * the families of engine/visitors/botFamilies.ts (probes, monitors, renderers, feed readers,
 * HTTP libraries, automation), then isbot's list.
 */
export const botListLayer = (userAgent: string): Verdict | undefined => {
  if (ANY_FAMILY.test(userAgent)) {
    for (const { token, pattern } of FAMILY_TOKENS) {
      const match = pattern.exec(userAgent)
      if (match !== null) return verdict("bot", "bot-family", `${token.family}: ${token.name} (${match[0]})`)
    }
  }
  if (listedByIsbot(userAgent)) return verdict("bot", "isbot", isbotMatch(userAgent) ?? userAgent)
  return undefined
}
