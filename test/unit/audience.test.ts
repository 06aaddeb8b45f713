import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { describe, expect, it } from "vitest"
import { classifyAudience, clearAudienceMemo, type Audience } from "../../engine/visitors/audience.ts"

// The repository is checked out at X/main with the shared material at X/shared.
const CORPUS = new URL("../fixtures/user-agents.tsv", import.meta.url)

interface CorpusRow {
  readonly line: number
  readonly label: Audience
  readonly ua: string
  readonly short: string
}

const LABELS: ReadonlySet<string> = new Set(["people", "agent", "bot"])

const truncate = (s: string, max = 70): string =>
  s.length === 0 ? "(empty)" : s.length <= max ? s : `${s.slice(0, max - 1)}…`

const loadCorpus = (): CorpusRow[] => {
  const lines = readFileSync(CORPUS, "utf8").split("\n")
  const rows: CorpusRow[] = []
  // Line 1 is the header; the file ends with a newline.
  for (let i = 1; i < lines.length; i++) {
    if (lines[i].length === 0) continue
    const [label, ua] = lines[i].split("\t")
    if (!LABELS.has(label) || ua === undefined) throw new Error(`corpus line ${i + 1} is malformed`)
    rows.push({ line: i + 1, label: label as Audience, ua, short: truncate(ua) })
  }
  return rows
}

const corpus = loadCorpus()

describe("classifyAudience: corpus", () => {
  it("loaded the whole corpus", () => {
    expect(corpus.length).toBeGreaterThan(350)
    for (const label of LABELS) expect(corpus.some((row) => row.label === label)).toBe(true)
  })

  // Tuples and %s rather than $field: vitest cuts interpolated fields at 40 characters,
  // which leaves most browser rows looking identical in the report.
  it.each(corpus.map((row) => [row.line, row.label, row.short, row.ua] as const))(
    "line %i is %s: %s",
    (_line, label, _short, ua) => {
      expect(classifyAudience(ua, undefined)).toBe(label)
    }
  )

  it("classifies the same from a warm memo", () => {
    for (const { ua } of corpus) classifyAudience(ua, undefined)
    for (const { label, ua } of corpus) expect(classifyAudience(ua, undefined), ua).toBe(label)
  })

  it("stays correct after the memo has been cleared by overflowing it", () => {
    clearAudienceMemo()
    for (let i = 0; i < 10_000; i++) classifyAudience(`Mozilla/5.0 (X11; Linux x86_64) Firefox/${i}.0`, undefined)
    for (const { label, ua } of corpus) expect(classifyAudience(ua, undefined), ua).toBe(label)
  })
})

const BROWSER = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/151.0.0.0 Safari/537.36"

describe("classifyAudience: Signature-Agent (Web Bot Auth)", () => {
  it.each([
    { name: "browser UA", ua: BROWSER, header: '"https://chatgpt.com"' },
    { name: "no UA", ua: undefined, header: '"https://chatgpt.com"' },
    { name: "empty UA", ua: "", header: "sig1=\"https://agent.example\"" },
    // The design counts every signed request as an agent, crawler UA or not.
    { name: "crawler UA", ua: "Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)", header: '"https://chatgpt.com"' }
  ])("a request carrying the header is an agent ($name)", ({ ua, header }) => {
    expect(classifyAudience(ua, header)).toBe("agent")
  })

  it.each([
    { name: "empty", header: "" },
    { name: "blank", header: "  " }
  ])("an $name header is ignored", ({ header }) => {
    expect(classifyAudience(BROWSER, header)).toBe("people")
    expect(classifyAudience("curl/8.5.0", header)).toBe("bot")
  })
})

describe("classifyAudience: missing User-Agent", () => {
  it.each([
    { name: "absent", ua: undefined },
    { name: "empty", ua: "" },
    { name: "blank", ua: "   " },
    { name: "tab", ua: "\t" }
  ])("$name is a bot", ({ ua }) => {
    expect(classifyAudience(ua, undefined)).toBe("bot")
  })
})

describe("classifyAudience: hand-picked", () => {
  it.each<{ ua: string; expected: Audience }>([
    // Agents: one person's request.
    { ua: "ChatGPT-User/1.0", expected: "agent" },
    { ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ChatGPT-User/1.0; +https://openai.com/bot)", expected: "agent" },
    { ua: "Claude-User (claude-code/2.1.86; +https://support.anthropic.com/)", expected: "agent" },
    { ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)", expected: "agent" },
    { ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; MistralAI-User/1.0; +https://docs.mistral.ai/robots)", expected: "agent" },
    { ua: "META-EXTERNALFETCHER/1.1", expected: "agent" },
    // A vendor following the <Vendor>-User convention is counted without a code change.
    { ua: "Mozilla/5.0 (compatible; NewVendor-User/1.0; +https://newvendor.example/bot)", expected: "agent" },
    // Crawlers of the same vendors are bots.
    { ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.3; +https://openai.com/gptbot)", expected: "bot" },
    { ua: "Mozilla/5.0 (compatible; OAI-SearchBot/1.3; +https://openai.com/searchbot)", expected: "bot" },
    { ua: "Mozilla/5.0 (compatible; ClaudeBot/1.0; +claudebot@anthropic.com)", expected: "bot" },
    { ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)", expected: "bot" },
    { ua: "meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)", expected: "bot" },
    { ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GoogleOther) Chrome/117.0.5938.132 Safari/537.36", expected: "bot" },
    // "-User-Agent" is not the agent convention.
    { ua: "My-User-Agent/1.0", expected: "bot" },
    // Other bots.
    { ua: "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)", expected: "bot" },
    { ua: "curl/8.5.0", expected: "bot" },
    { ua: "python-requests/2.31.0", expected: "bot" },
    { ua: "Dart/3.5 (dart:io)", expected: "bot" },
    { ua: "Mozilla/5.0 (Windows NT 10.0; Microsoft Windows 10.0.19045; en-US) PowerShell/7.4.0", expected: "bot" },
    { ua: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36", expected: "bot" },
    // People.
    { ua: BROWSER, expected: "people" },
    { ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 18_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1", expected: "people" }
  ])("$expected: $ua", ({ ua, expected }) => {
    expect(classifyAudience(ua, undefined)).toBe(expected)
  })
})

// Browser User-Agents collected from real visits by the `user-agents` package (a dev
// dependency; its data file ships in the package). Every list-driven rule above must leave
// them alone.
const browserSample = (): string[] => {
  const packageDir = dirname(createRequire(import.meta.url).resolve("user-agents"))
  const rows = JSON.parse(readFileSync(join(packageDir, "user-agents.json"), "utf8")) as { userAgent: string }[]
  return [...new Set(rows.map((row) => row.userAgent))]
}

describe("classifyAudience: ordinary browsers (no regression)", () => {
  const browsers = browserSample()

  it("loaded a few hundred distinct browsers", () => {
    expect(browsers.length).toBeGreaterThan(300)
  })

  it("counts every one of them as people", () => {
    clearAudienceMemo()
    const misread = browsers.filter((ua) => classifyAudience(ua, undefined) !== "people")
    expect(misread).toEqual([])
  })
})
