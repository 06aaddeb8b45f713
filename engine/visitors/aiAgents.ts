/**
 * AI fetchers that act on one person's request, taken from each vendor's own published list
 * of its crawlers and fetchers. A request from one of these is counted as an `agent`; the
 * same vendors' training, search and ads crawlers have other tokens and stay bots.
 *
 * An entry belongs here only when its vendor documents it as fetching because a person asked
 * (a question in a chat, a source added to a notebook, a page read aloud, a task handed to
 * an agent), and what acts on the page is an AI product. User-triggered fetchers that are
 * not AI products acting for that person stay bots although their vendors list them beside
 * these: Google's Feedfetcher (refreshes subscribed feeds on a schedule), Site Verifier
 * (checks site ownership), Publisher Center (`GoogleProducer`), Chrome Web Store
 * (`Google-CWS`) and Google Messages (link previews).
 *
 * Patterns are matched without case: vendors are not consistent about it (Meta documents
 * `meta-externalfetcher` in lower case, others send `Meta-ExternalFetcher`).
 */
export interface AiUserFetcher {
  /** Regular-expression source for the token in a User-Agent. */
  readonly pattern: string
  readonly vendor: string
  readonly kind: "user-fetcher"
  /** The vendor's page (or, for a tool, its own source) that documents the token. */
  readonly source: string
}

const GOOGLE_USER_TRIGGERED =
  "https://developers.google.com/crawling/docs/crawlers-fetchers/google-user-triggered-fetchers"

export const AI_USER_FETCHERS: readonly AiUserFetcher[] = [
  {
    pattern: "\\bChatGPT-User\\b",
    vendor: "OpenAI",
    kind: "user-fetcher",
    source: "https://platform.openai.com/docs/bots"
  },
  {
    pattern: "\\bClaude-User\\b",
    vendor: "Anthropic",
    kind: "user-fetcher",
    source:
      "https://support.claude.com/en/articles/8896518-does-anthropic-crawl-data-from-the-web-and-how-can-site-owners-block-the-crawler"
  },
  {
    pattern: "\\bPerplexity-User\\b",
    vendor: "Perplexity",
    kind: "user-fetcher",
    source: "https://docs.perplexity.ai/guides/bots"
  },
  {
    pattern: "\\bMistralAI-User\\b",
    vendor: "Mistral AI",
    kind: "user-fetcher",
    source: "https://docs.mistral.ai/robots"
  },
  {
    pattern: "\\bmeta-externalfetcher\\b",
    vendor: "Meta",
    kind: "user-fetcher",
    source: "https://developers.facebook.com/docs/sharing/webmasters/web-crawlers"
  },
  {
    pattern: "\\bAmzn-User\\b",
    vendor: "Amazon",
    kind: "user-fetcher",
    source: "https://developer.amazon.com/amazonbot"
  },
  // The Nova Act SDK appends this to the browser's User-Agent of every session it drives.
  {
    pattern: "\\bAgent-NovaAct/",
    vendor: "Amazon",
    kind: "user-fetcher",
    source: "https://github.com/aws/nova-act"
  },
  {
    pattern: "\\bGoogle-Agent\\b",
    vendor: "Google",
    kind: "user-fetcher",
    source: GOOGLE_USER_TRIGGERED
  },
  // Google's browsing agents are named GoogleAgent-<product>: Mariner, URLContext (the
  // Gemini API's URL context tool), Search.
  {
    pattern: "\\bGoogleAgent-[A-Za-z]+",
    vendor: "Google",
    kind: "user-fetcher",
    source: "https://developers.google.com/search/docs/crawling-indexing/google-agent-mariner"
  },
  {
    pattern: "\\bGoogle-NotebookLM\\b",
    vendor: "Google",
    kind: "user-fetcher",
    source: GOOGLE_USER_TRIGGERED
  },
  {
    pattern: "\\bGoogle-GeminiNotebook\\b",
    vendor: "Google",
    kind: "user-fetcher",
    source: GOOGLE_USER_TRIGGERED
  },
  // Fetches a URL a Pinpoint user adds to a collection, which Google's AI then analyses.
  {
    pattern: "\\bGoogle-Pinpoint\\b",
    vendor: "Google",
    kind: "user-fetcher",
    source: GOOGLE_USER_TRIGGERED
  },
  // Reads a page out loud to the person who asked, understanding it "through help of AI"
  // (Google's words); `google-speakr` is the name it had before.
  {
    pattern: "\\bGoogle-Read-Aloud\\b|\\bgoogle-speakr\\b",
    vendor: "Google",
    kind: "user-fetcher",
    source: "https://developers.google.com/search/docs/crawling-indexing/read-aloud-user-agent"
  },
  {
    pattern: "\\bGemini-Deep-Research\\b",
    vendor: "Google",
    kind: "user-fetcher",
    source: "https://gemini.google/overview/deep-research/"
  },
  {
    pattern: "\\bGoogle-Gemini-CLI/",
    vendor: "Google",
    kind: "user-fetcher",
    source: "https://github.com/google-gemini/gemini-cli"
  },
  // Fetches pages in real time to answer one search with DuckAssist; not used for training.
  {
    pattern: "\\bDuckAssistBot\\b",
    vendor: "DuckDuckGo",
    kind: "user-fetcher",
    source: "https://duckduckgo.com/duckduckgo-help-pages/results/duckassistbot"
  },
  {
    pattern: "\\bkagi-fetcher\\b",
    vendor: "Kagi",
    kind: "user-fetcher",
    source: "https://help.kagi.com/kagi/ai/kagi-ai.html"
  },
  {
    pattern: "\\bManus-User\\b",
    vendor: "Manus",
    kind: "user-fetcher",
    source: "https://manus.im/help/Manus-user"
  },
  {
    pattern: "\\bKimi-User\\b",
    vendor: "Moonshot AI",
    kind: "user-fetcher",
    source: "https://www.kimi.com/policies/kimi-crawlers"
  },
  {
    pattern: "\\bDevin/",
    vendor: "Cognition",
    kind: "user-fetcher",
    source: "https://docs.devin.ai/get-started/devin-intro"
  }
]
