import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type EngineStack, startEngineStack } from "../support/engineStack.ts"
import { eventually } from "../support/processes.ts"
import { exchange, rawRequest } from "../support/rawHttp.ts"

/**
 * Who clicked, through a `ricochet engine` (docs/decisions.md#who-clicked): visits of the kinds
 * `isbot` alone misjudged are counted as the layered classifier says (people on TVs, consoles,
 * feature phones, regional browsers and phones whose model says "bot"; bots from probes,
 * renderers and feed readers), and the operator port explains any User-Agent on GET /classify.
 */

// Copied from public collections of real User-Agents (test/fixtures/user-agents-collected.tsv names each source).
const PEOPLE = [
  "Mozilla/5.0 (SMART-TV; LINUX; Tizen 3.0) AppleWebKit/538.1 (KHTML, like Gecko) Version/3.0 TV Safari/538.1",
  "Mozilla/5.0 (Nintendo WiiU) AppleWebKit/536.30 (KHTML, like Gecko) NX/3.0.4.2.13 NintendoBrowser/4.3.2.11274.EU",
  "Mozilla/5.0 (Series40; Nokia306/03.63; Profile/MIDP-2.1 Configuration/CLDC-1.1) Gecko/20100401 S40OviBrowser/3.9.0.0.22",
  "Mozilla/5.0 (Linux; Android 6.0; B BOT 550) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/71.0.3578.99 Mobile Safari/537.36",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 10_3_3 like Mac OS X) AppleWebKit/603.3.8 (KHTML, like Gecko) Mobile/14G60 SogouMobileBrowser/5.9.4"
]
const BOTS = [
  "kube-probe/1.9+",
  "Consul Health Check",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/133.0.0.0 Safari/537.36 DebugBear",
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/534.34 (KHTML, like Gecko) wkhtmltopdf Safari/534.34",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_8_5) AppleWebKit/536.30.1 (KHTML, like Gecko) Vienna/3.0.6 Safari/37.85.16.12"
]

interface Counts {
  readonly people: number
  readonly agent: number
  readonly bot: number
}

describe("who clicked, through the engine", () => {
  let stack: EngineStack
  let admin: string

  const status = async () => ((await (await fetch(`${stack.engine.baseUrl}/.well-known/ricochet/status`)).json()) as { clicks: Counts }).clicks
  const visit = async (userAgent: string) => {
    const result = await exchange(stack.engine.port, [rawRequest({ target: "/who", host: stack.host, headers: [["User-Agent", userAgent]] })], [false])
    expect(result.responses.map((response) => response.status)).toEqual([302])
  }
  const classify = async (query: string) => {
    const response = await fetch(`${admin}/classify${query}`)
    return { status: response.status, type: response.headers.get("content-type"), body: (await response.json()) as Record<string, unknown> }
  }

  beforeAll(async () => {
    stack = await startEngineStack()
    admin = `http://127.0.0.1:${stack.engine.env.RICOCHET_ENGINE_ADMIN_PORT}`
    const created = await stack.api.post("/v1/links", { url: "https://example.com/who", slug: "who" })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    await eventually(async () => {
      const result = await exchange(stack.engine.port, [rawRequest({ target: "/who", host: stack.host })], [false])
      return result.responses[0]?.status === 302
    }, 10_000)
    // That first redirect is a click without a User-Agent: wait until the writer has counted it.
    await eventually(async () => (await status()).bot >= 1, 10_000)
  }, 120_000)

  afterAll(async () => {
    await stack?.stop()
  })

  it("counts TV, console, feature-phone, regional and 'bot'-named phones' visits as people, probes, renderers and feed readers as bots", async () => {
    const before = await status()
    for (const userAgent of [...PEOPLE, ...BOTS]) await visit(userAgent)
    await eventually(async () => {
      const now = await status()
      return now.people - before.people + (now.bot - before.bot) >= PEOPLE.length + BOTS.length
    }, 10_000)
    const after = await status()
    expect({ people: after.people - before.people, agent: after.agent - before.agent, bot: after.bot - before.bot }).toEqual({
      people: PEOPLE.length,
      agent: 0,
      bot: BOTS.length
    })
  })

  it.each([
    [PEOPLE[3], "people", "browser"],
    [BOTS[0], "bot", "bot-family"],
    [BOTS[2], "bot", "browser-bot-token"],
    ["Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ChatGPT-User/1.0; +https://openai.com/bot)", "agent", "agent-vendor"]
  ])("GET /classify explains %s as %s by rule %s", async (userAgent, audience, rule) => {
    const answer = await classify(`?ua=${encodeURIComponent(userAgent)}`)
    expect(answer.status).toBe(200)
    expect(answer.type).toBe("application/json")
    expect(answer.body).toMatchObject({ userAgent, audience, rule, counted: audience !== "bot" })
  })

  it("GET /classify reads a Signature-Agent header given as signatureAgent", async () => {
    const answer = await classify(`?ua=${encodeURIComponent(BOTS[0])}&signatureAgent=${encodeURIComponent('"https://chatgpt.com"')}`)
    expect(answer.body).toMatchObject({ audience: "agent", rule: "signature-agent" })
  })

  it("GET /classify without ua is a 400 with the error body", async () => {
    const answer = await classify("")
    expect(answer.status).toBe(400)
    expect(answer.body).toMatchObject({ error: { code: "bad_request" } })
  })
})
