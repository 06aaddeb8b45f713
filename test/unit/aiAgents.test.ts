import { describe, expect, it } from "vitest"
import { AI_USER_FETCHERS } from "../../engine/visitors/aiAgents.ts"
import { classifyAudience } from "../../engine/visitors/audience.ts"

// `source` is where the string was copied from: a vendor page, or a public collection of
// real User-Agents as github:owner/repo@commit:path.
const ISBOT = "github:omrilotan/isbot@344052da66:fixtures"
const MATOMO = "github:matomo-org/device-detector@3856a28692:Tests/fixtures/bots.yml"
const MONPERRUS = "github:monperrus/crawler-user-agents@7c7f9f254f:crawler-user-agents.json"
const UA_PARSER = "github:faisalman/ua-parser-js@18d39b53dd:test/data/ua/extension/fetcher.json"
const GOOGLE_USER_TRIGGERED =
  "https://developers.google.com/crawling/docs/crawlers-fetchers/google-user-triggered-fetchers"

interface Sample {
  readonly ua: string
  readonly source: string
}

/** Real User-Agents of every entry of the agent list, keyed by the entry's pattern. */
const USER_FETCHER_SAMPLES: Readonly<Record<string, readonly Sample[]>> = {
  "\\bChatGPT-User\\b": [
    {
      ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot",
      source: "https://platform.openai.com/docs/bots"
    }
  ],
  "\\bClaude-User\\b": [
    {
      ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)",
      source: MATOMO
    },
    { ua: "Claude-User (claude-code/2.1.86; +https://support.anthropic.com/)", source: MONPERRUS }
  ],
  "\\bPerplexity-User\\b": [
    {
      ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)",
      source: "https://docs.perplexity.ai/guides/bots"
    }
  ],
  "\\bMistralAI-User\\b": [
    {
      ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; MistralAI-User/1.0; +https://docs.mistral.ai/robots)",
      source: "https://docs.mistral.ai/robots"
    }
  ],
  "\\bmeta-externalfetcher\\b": [
    {
      ua: "meta-externalfetcher/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)",
      source: "https://developers.facebook.com/docs/sharing/webmasters/web-crawlers"
    },
    { ua: "Mozilla/5.0 (compatible; meta-externalfetcher/1.1)", source: `${ISBOT}/crawlers.yml` }
  ],
  "\\bAmzn-User\\b": [
    {
      ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Amzn-User/0.1) Chrome/119.0.6045.214 Safari/537.36",
      source: MATOMO
    }
  ],
  "\\bAgent-NovaAct/": [
    {
      ua: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/115.0.0.0 Safari/537.36 Agent-NovaAct/0.9",
      source: UA_PARSER
    }
  ],
  "\\bGoogle-Agent\\b": [
    {
      ua: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko; compatible; Google-Agent)",
      source: MONPERRUS
    }
  ],
  "\\bGoogleAgent-[A-Za-z]+": [
    {
      ua: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko; compatible; GoogleAgent-Mariner; +https://developers.google.com/search/docs/crawling-indexing/google-agent-mariner) Chrome/135.0.0.0 Safari/537.36",
      source: MATOMO
    },
    {
      ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GoogleAgent-Search; +https://developers.google.com/search/docs/crawling-indexing/google-agent-search) Chrome/114.0.0.0 Safari/537.36",
      source: MATOMO
    }
  ],
  "\\bGoogle-NotebookLM\\b": [
    { ua: "Google-NotebookLM", source: MATOMO },
    { ua: "Mozilla/5.0 (compatible; Google-NotebookLM; +https://notebooklm.google.com/)", source: MONPERRUS }
  ],
  "\\bGoogle-GeminiNotebook\\b": [
    {
      ua: "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/138.0.0.0 Mobile Safari/537.36 (compatible; Google-GeminiNotebook; +https://developers.google.com/crawling/docs/crawlers-fetchers/google-gemininotebook)",
      source: GOOGLE_USER_TRIGGERED
    }
  ],
  "\\bGoogle-Pinpoint\\b": [{ ua: "Google-Pinpoint", source: MATOMO }],
  "\\bGoogle-Read-Aloud\\b|\\bgoogle-speakr\\b": [
    {
      ua: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/41.0.2272.118 Safari/537.36 (compatible; Google-Read-Aloud; +https://support.google.com/webmasters/answer/1061943)",
      source: UA_PARSER
    },
    {
      ua: "Mozilla/5.0 (Linux; Android 7.0; SM-G930V Build/NRD90M) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/59.0.3071.125 Mobile Safari/537.36 (compatible; Google-Read-Aloud; +https://support.google.com/webmasters/answer/1061943)",
      source: UA_PARSER
    },
    { ua: "Google-speakr", source: `${ISBOT}/downloaded/matomo-org.json` }
  ],
  "\\bGemini-Deep-Research\\b": [
    {
      ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Gemini-Deep-Research; +https://gemini.google/overview/deep-research/) Chrome/135.0.0.0 Safari/537.36",
      source: MATOMO
    }
  ],
  "\\bGoogle-Gemini-CLI/": [
    {
      ua: "Mozilla/5.0 (compatible; Google-Gemini-CLI/1.0; +https://github.com/google-gemini/gemini-cli)",
      source: MONPERRUS
    }
  ],
  "\\bDuckAssistBot\\b": [
    { ua: "DuckAssistBot/1.2; (+http://duckduckgo.com/duckassistbot.html)", source: UA_PARSER },
    { ua: "DuckAssistBot/1.1; (+http://duckduckgo.com/duckassistbot.html)", source: MATOMO }
  ],
  "\\bkagi-fetcher\\b": [{ ua: "kagi-fetcher/1.0", source: MONPERRUS }],
  "\\bManus-User\\b": [
    {
      ua: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/132.0.0.0 Safari/537.36; Manus-User/1.0",
      source: MATOMO
    }
  ],
  "\\bKimi-User\\b": [
    {
      ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; Kimi-User/1.0; +https://www.kimi.com/policies/kimi-crawlers",
      source: MATOMO
    }
  ],
  "\\bDevin/": [
    {
      ua: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/137.0.0.0 Safari/537.36; Devin/1.0; +https://devin.ai",
      source: MONPERRUS
    },
    { ua: "Mozilla/5.0 (compatible; Devin/1.0)", source: MATOMO }
  ]
}

/**
 * Crawlers and non-AI fetchers of the same vendors: training, search, ads, previews,
 * feeds, site verification. None acts for one person, so none is counted.
 */
const SAME_VENDOR_BOTS: readonly (Sample & { readonly vendor: string })[] = [
  {
    vendor: "OpenAI",
    ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.3; +https://openai.com/gptbot)",
    source: "https://platform.openai.com/docs/bots"
  },
  {
    vendor: "OpenAI",
    ua: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36; compatible; OAI-SearchBot/1.3; +https://openai.com/searchbot",
    source: "https://platform.openai.com/docs/bots"
  },
  {
    vendor: "OpenAI",
    ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-AdsBot/1.0; +https://openai.com/adsbot",
    source: "https://platform.openai.com/docs/bots"
  },
  {
    vendor: "Anthropic",
    ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)",
    source: "https://support.claude.com/en/articles/8896518"
  },
  {
    vendor: "Anthropic",
    ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-SearchBot/1.0; +searchbot@anthropic.com)",
    source: "https://support.claude.com/en/articles/8896518"
  },
  { vendor: "Anthropic", ua: "Claude-Web/1.0 (web crawler; +https://www.anthropic.com/; bots@anthropic.com)", source: MONPERRUS },
  {
    vendor: "Perplexity",
    ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)",
    source: "https://docs.perplexity.ai/guides/bots"
  },
  {
    vendor: "Mistral AI",
    ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; MistralAI-Index/1.0; +https://docs.mistral.ai/robots)",
    source: "https://docs.mistral.ai/robots"
  },
  {
    vendor: "Meta",
    ua: "meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)",
    source: "https://developers.facebook.com/docs/sharing/webmasters/web-crawlers"
  },
  {
    vendor: "Meta",
    ua: "meta-webindexer/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)",
    source: "https://developers.facebook.com/docs/sharing/webmasters/web-crawlers"
  },
  {
    vendor: "Meta",
    ua: "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
    source: "https://developers.facebook.com/docs/sharing/webmasters/web-crawlers"
  },
  {
    vendor: "Amazon",
    ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Amazonbot/0.1; +https://developer.amazon.com/support/amazonbot) Chrome/119.0.6045.214 Safari/537.36",
    source: "https://developer.amazon.com/amazonbot"
  },
  {
    vendor: "Amazon",
    ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Amzn-SearchBot/0.1) Chrome/119.0.6045.214 Safari/537.36",
    source: "https://developer.amazon.com/amazonbot"
  },
  {
    vendor: "Google",
    ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GoogleOther) Chrome/117.0.5938.132 Safari/537.36",
    source: "https://developers.google.com/search/docs/crawling-indexing/overview-google-crawlers"
  },
  { vendor: "Google", ua: "Mozilla/5.0 (compatible; Google-Extended/1.0; +http://www.google.com/bot.html)", source: `${ISBOT}/crawlers.yml` },
  {
    vendor: "Google",
    ua: "Mozilla/5.0 (compatible; Google-CloudVertexBot; +https://cloud.google.com/vertex-ai-bot)",
    source: "https://developers.google.com/search/docs/crawling-indexing/overview-google-crawlers"
  },
  { vendor: "Google", ua: "Mozilla/5.0 (compatible; Google-InspectionTool/1.0)", source: `${ISBOT}/crawlers.yml` },
  // User-triggered, but not an AI product acting for the person (see aiAgents.ts).
  { vendor: "Google", ua: "FeedFetcher-Google; (+http://www.google.com/feedfetcher.html)", source: GOOGLE_USER_TRIGGERED },
  { vendor: "Google", ua: "Mozilla/5.0 (compatible; Google-Site-Verification/1.0)", source: `${ISBOT}/crawlers.yml` },
  {
    vendor: "Google",
    ua: "GoogleProducer; (+https://developers.google.com/search/docs/crawling-indexing/google-producer)",
    source: MONPERRUS
  },
  { vendor: "Google", ua: "Mozilla/5.0 (compatible; Google-CWS)", source: GOOGLE_USER_TRIGGERED },
  {
    vendor: "Google",
    ua: "mozilla/5.0 (windows nt 10.0; win64; x64) applewebkit/537.36 (khtml, like gecko) chrome/123.0.0.0 safari/537.36 googlemessages/15.1",
    source: `${ISBOT}/crawlers.yml`
  },
  { vendor: "DuckDuckGo", ua: "DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)", source: "https://duckduckgo.com/duckduckgo-help-pages/results/duckduckbot" },
  { vendor: "Kagi", ua: "Mozilla/5.0 (compatible; Kagibot/1.0; +https://kagi.com/bot)", source: `${ISBOT}/crawlers.yml` },
  {
    vendor: "Moonshot AI",
    ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; Kimi-SearchBot/1.0; +https://www.kimi.com/policies/kimi-crawlers",
    source: "https://www.kimi.com/policies/kimi-crawlers"
  },
  {
    vendor: "Apple",
    ua: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)",
    source: "https://support.apple.com/en-us/119829"
  },
  {
    vendor: "Microsoft",
    ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/112.0.0.0 Safari/537.36",
    source: "https://www.bing.com/webmasters/help/which-crawlers-does-bing-use-8c184ec0"
  },
  {
    vendor: "You.com",
    ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; YouBot/1.0; +https://docs.you.com/youbot; env:prod) Chrome/142.0.0.0 Safari/537.36",
    source: `${ISBOT}/downloaded/myip.ms.json`
  },
  {
    vendor: "ByteDance",
    ua: "Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)",
    source: `${ISBOT}/downloaded/myip.ms.json`
  },
  { vendor: "Cohere", ua: "cohere-training-data-crawler (+crawler@cohere.ai)", source: MONPERRUS },
  { vendor: "xAI", ua: "Mozilla/5.0 (compatible; xAI-SearchBot/1.0; +https://x.ai)", source: `${ISBOT}/downloaded/myip.ms.json` }
]

const truncate = (s: string, max = 90): string => (s.length <= max ? s : `${s.slice(0, max - 1)}…`)

describe("AI_USER_FETCHERS", () => {
  it.each(AI_USER_FETCHERS.map((fetcher) => [fetcher.pattern, fetcher] as const))(
    "%s cites its vendor's page and compiles",
    (_pattern, fetcher) => {
      expect(fetcher.kind).toBe("user-fetcher")
      expect(fetcher.vendor.length).toBeGreaterThan(0)
      expect(new URL(fetcher.source).protocol).toBe("https:")
      expect(() => new RegExp(fetcher.pattern, "i")).not.toThrow()
    }
  )

  it("every entry has real User-Agents in the sample table, and every sample an entry", () => {
    const patterns = AI_USER_FETCHERS.map((fetcher) => fetcher.pattern).sort()
    expect(Object.keys(USER_FETCHER_SAMPLES).sort()).toEqual(patterns)
  })

  const samples = Object.entries(USER_FETCHER_SAMPLES).flatMap(([pattern, list]) =>
    list.map((sample) => [truncate(sample.ua), pattern, sample] as const)
  )

  it.each(samples)("agent: %s", (_short, pattern, { ua }) => {
    expect(new RegExp(pattern, "i").test(ua), "the entry's own pattern").toBe(true)
    expect(classifyAudience(ua, undefined)).toBe("agent")
  })
})

describe("crawlers and non-AI fetchers of the same vendors", () => {
  it.each(SAME_VENDOR_BOTS.map((sample) => [sample.vendor, truncate(sample.ua), sample] as const))(
    "%s bot: %s",
    (_vendor, _short, { ua }) => {
      expect(classifyAudience(ua, undefined)).toBe("bot")
    }
  )
})
