import { describe, expect, it } from "vitest"
import { classifyUserAgent, MAX_USER_AGENT_LENGTH } from "../../engine/visitors/classifyUserAgent.ts"
import type { Audience, Rule } from "../../engine/visitors/verdict.ts"

// Real User-Agents from public collections (the rows of test/fixtures/user-agents-collected.tsv
// and test/fixtures/user-agents.tsv name their sources), one or more for each rule.
const CASES: ReadonlyArray<readonly [Rule, Audience, string, string]> = [
  // [rule, audience, evidence it shows (a substring), User-Agent]
  ["empty", "bot", "", "  "],
  ["agent-vendor", "agent", "ChatGPT-User", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot"],
  ["agent-vendor", "agent", "Google-Read-Aloud", "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/138.0.0.0 Mobile Safari/537.36 (compatible; Google-Read-Aloud; +https://support.google.com/webmasters/answer/1061943)"],
  ["agent-convention", "agent", "NewVendor-User", "Mozilla/5.0 (compatible; NewVendor-User/1.0; +https://newvendor.example/bot)"],
  ["browser", "people", "Samsung Internet", "Mozilla/5.0 (Linux; Android 9; SAMSUNG SM-A605G Build/PPR1.180610.011) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/9.2 Chrome/67.0.3396.87 Mobile Safari/537.36"],
  ["browser", "people", "on Tizen", "Mozilla/5.0 (SMART-TV; LINUX; Tizen 3.0) AppleWebKit/538.1 (KHTML, like Gecko) Version/3.0 TV Safari/538.1"],
  ["browser", "people", "on Android", "Mozilla/5.0 (Linux; Android 6.0; B BOT 550) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/71.0.3578.99 Mobile Safari/537.36"],
  ["browser", "people", "Quark", "Mozilla/5.0 (Linux; U; Android 12; zh-Hans-CN; JLH-AN00 Build/HONORJLH-AN00) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/78.0.3904.108 Quark/5.8.2.221 Mobile Safari/537.36"],
  ["personal-device", "people", "PlayStation", "Mozilla/5.0 (PlayStation 4 Pro 5.0)"],
  ["personal-device", "people", "smarttv", "HbbTV/1.5.1 (+DRM;Panasonic;SmartTV2020mid;3.326;4301-0003 0008-0000;com.panasonic.SmartTV2020mid;)"],
  ["personal-device", "people", "mobile", "Micromax X321/R2AE SEMC-Browser/4.0.3 Profile/MIDP-2.0 Configuration/CLDC-1.1"],
  ["browser-bot-token", "bot", "HeadlessChrome", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/92.0.4512.0 Safari/537.36"],
  ["browser-bot-token", "bot", "Googlebot", "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/134.0.6998.165 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"],
  ["browser-bot-token", "bot", "StatusCake", "Mozilla/5.0 (Windows NT 6.2; WOW64) AppleWebKit/537.4 (KHTML, like Gecko) Chrome/98 Safari/537.4 (StatusCake SSL Monitor)"],
  ["browser-bot-token", "bot", "Rigor", "Mozilla/5.0 (X11; Linux x86_64; Rigor) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/80.0.3987.106 Safari/537.36"],
  ["browser-bot-token", "bot", "Vienna/3", "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_8_5) AppleWebKit/536.30.1 (KHTML, like Gecko) Vienna/3.0.6 Safari/37.85.16.12"],
  ["browser-contact", "bot", "http://", "Mozilla/5.0 (Macintosh; Butterfly/1.0; +http://labs.topsy.com/butterfly/) Gecko/2009032608 Firefox/3.0.8"],
  ["bot-family", "bot", "probe: Kubernetes", "kube-probe/1.15"],
  ["bot-family", "bot", "probe: Consul", "Consul Health Check"],
  ["bot-family", "bot", "feed-reader: Tiny Tiny RSS", "Tiny Tiny RSS/16.1 (http://tt-rss.org/)"],
  ["bot-family", "bot", "http-library: Go net/http", "Go-http-client/2.0"],
  ["isbot", "bot", "bot", "Mozilla/5.0 (compatible; houzzbot; +http://www.houzz.com/)"],
  ["browser-unknown-platform", "people", "Opera Mini", "Opera/9.80 (iOS; Opera Mini/7.0.73345/28.2555; U; ru) Presto/2.10.229 Version/11.62"],
  ["app-on-device", "people", "Android", "Dalvik/2.1.0 (Linux; U; Android 9; Moto G4 Plus Build/PQ1A.190105.004)"],
  ["app-on-device", "people", "", "Blogos/1.13 CFNetwork/548.0.4 Darwin/11.0.0"],
  ["non-browser", "bot", "", "git-annex/10.20221105-g4c291fafb"],
  ["non-browser", "bot", "", "CopperEgg/RevealUptime/TokyoJapan"]
]

describe("classifyUserAgent: each layer's rules, with what decided", () => {
  it.each(CASES.map(([rule, audience, evidence, ua]) => [rule, audience, ua, evidence] as const))(
    "%s → %s: %s",
    (rule, audience, ua, evidence) => {
      const verdict = classifyUserAgent(ua)
      expect(verdict).toMatchObject({ audience, rule })
      expect(verdict.evidence).toContain(evidence)
    }
  )

  it("answers the same verdict for the same string (pure)", () => {
    for (const [, , , ua] of CASES) expect(classifyUserAgent(ua)).toEqual(classifyUserAgent(ua))
  })

  it("does not read a string longer than any browser's", () => {
    const padded = `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 ${"a".repeat(MAX_USER_AGENT_LENGTH)}`
    expect(classifyUserAgent(padded)).toMatchObject({ audience: "bot", rule: "oversized" })
    expect(classifyUserAgent(padded.slice(0, MAX_USER_AGENT_LENGTH))).toMatchObject({ audience: "people", rule: "browser" })
  })

  it("agents come first: a vendor's user fetcher is an agent although isbot lists it", () => {
    expect(classifyUserAgent("Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)")).toMatchObject({ audience: "agent", rule: "agent-vendor" })
  })
})
