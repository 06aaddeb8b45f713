import { list as ISBOT_PATTERNS } from "isbot"
import { describe, expect, it } from "vitest"
import { BOT_TOKENS } from "../../engine/visitors/botFamilies.ts"
import { ISBOT_PATTERNS_NOT_FOR_SOFTWARE } from "../../engine/visitors/botSoftwareToken.ts"
import { classifyUserAgent } from "../../engine/visitors/classifyUserAgent.ts"
import { loadCorpus } from "../support/userAgentCorpus.ts"

const rows = [
  ...loadCorpus(new URL("../fixtures/user-agents.tsv", import.meta.url)),
  ...loadCorpus(new URL("../fixtures/user-agents-collected.tsv", import.meta.url))
]

describe("bot families (engine/visitors/botFamilies.ts)", () => {
  // Automation clients have their own samples (automationClients.test.ts).
  it.each(BOT_TOKENS.filter((token) => token.family !== "automation").map((token) => [token.family, token.name, token] as const))(
    "%s %s: a labelled bot of the test data shows its token, and no person's string does",
    (_family, _name, token) => {
      const pattern = new RegExp(token.pattern, "i")
      const matching = rows.filter((row) => pattern.test(row.ua))
      expect(matching.filter((row) => row.label === "bot").length).toBeGreaterThan(0)
      expect(matching.filter((row) => row.label === "people").map((row) => row.ua)).toEqual([])
      expect(token.source).toMatch(/^https:\/\//)
    }
  )

  it("every family's own samples are bots", () => {
    for (const token of BOT_TOKENS) {
      const pattern = new RegExp(token.pattern, "i")
      for (const row of rows.filter((r) => r.label === "bot" && pattern.test(r.ua))) {
        expect(classifyUserAgent(row.ua).audience, `${token.name}: ${row.ua}`).toBe("bot")
      }
    }
  })

  // isbot names these patterns; if an update drops or rewrites one, the exception list must follow.
  it.each(ISBOT_PATTERNS_NOT_FOR_SOFTWARE.map((pattern) => [pattern]))("isbot still lists %s", (pattern) => {
    expect(ISBOT_PATTERNS).toContain(pattern)
  })
})
