import { describe, expect, it } from "vitest"
import { classifyAudience } from "../../engine/visitors/audience.ts"
import { AUTOMATION_CLIENTS } from "../../engine/visitors/automationClients.ts"

// `source` is where the default is defined (a project's source or documentation) or, for a
// string captured in the wild, the public collection it was copied from
// (github:owner/repo@commit:path).
const ISBOT = "github:omrilotan/isbot@344052da66:fixtures"
const UA_PARSER = "github:faisalman/ua-parser-js@18d39b53dd:test/data/ua"
const MONPERRUS = "github:monperrus/crawler-user-agents@7c7f9f254f:crawler-user-agents.json"

interface Sample {
  readonly ua: string
  readonly source: string
}

/** Default User-Agents of the tools isbot misses, keyed by the entry's name. */
const AUTOMATION_SAMPLES: Readonly<Record<string, readonly Sample[]>> = {
  "Dart HttpClient": [{ ua: "Dart/3.5 (dart:io)", source: `${UA_PARSER}/extension/library.json` }],
  PowerShell: [
    {
      ua: "Mozilla/5.0 (Windows NT; Windows NT 10.0; de-DE) WindowsPowerShell/5.1.19041.5737",
      source: `${UA_PARSER}/extension/cli.json`
    },
    {
      ua: "Mozilla/5.0 (Windows NT 10.0; Microsoft Windows 10.0.19045; en-US) PowerShell/7.4.0",
      source: "https://learn.microsoft.com/powershell/module/microsoft.powershell.utility/invoke-webrequest"
    }
  ],
  // `Mozilla/5.0 (${process.platform}) AppleWebKit/537.36 (KHTML, like Gecko) jsdom/${version}`
  jsdom: [
    {
      ua: "Mozilla/5.0 (linux) AppleWebKit/537.36 (KHTML, like Gecko) jsdom/25.0.1",
      source: "https://github.com/jsdom/jsdom/blob/main/lib/jsdom/browser/resources/resource-loader.js"
    },
    {
      ua: "Mozilla/5.0 (darwin) AppleWebKit/537.36 (KHTML, like Gecko) jsdom/20.0.3",
      source: "https://github.com/jsdom/jsdom/blob/main/lib/jsdom/browser/resources/resource-loader.js"
    }
  ],
  "Zombie.js": [
    {
      ua: "Mozilla/5.0 Chrome/10.0.613.0 Safari/534.15 Zombie.js/6.1.4",
      source: "https://github.com/assaf/zombie/blob/master/src/index.js"
    }
  ],
  SlimerJS: [
    {
      ua: "Mozilla/5.0 (X11; Linux x86_64; rv:21.0) Gecko/20100101 SlimerJS/0.7",
      source: "https://docs.slimerjs.org/current/api/webpage.html"
    }
  ],
  "wkhtmltopdf / wkhtmltoimage": [
    {
      ua: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/534.34 (KHTML, like Gecko) wkhtmltopdf Safari/534.34",
      source: "https://doc.qt.io/archives/qt-4.8/qwebpage.html#userAgentForUrl"
    },
    {
      ua: "Mozilla/5.0 (Unknown; Linux x86_64) AppleWebKit/602.1 (KHTML, like Gecko) wkhtmltopdf Version/10.0 Safari/602.1",
      source: "https://doc.qt.io/archives/qt-4.8/qwebpage.html#userAgentForUrl"
    },
    {
      ua: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/538.1 (KHTML, like Gecko) wkhtmltoimage Safari/538.1",
      source: "https://doc.qt.io/archives/qt-4.8/qwebpage.html#userAgentForUrl"
    }
  ],
  Nightmare: [
    {
      ua: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Nightmare/3.0.2 Chrome/76.0.3809.146 Electron/6.1.7 Safari/537.36",
      source: "https://www.electronjs.org/docs/latest/api/app#appuseragentfallback"
    }
  ]
}

/** Defaults isbot already recognises; kept here so an isbot upgrade cannot lose them silently. */
const CAUGHT_BY_ISBOT: readonly (Sample & { readonly tool: string })[] = [
  {
    tool: "headless Chrome (Puppeteer, Playwright, Selenium's chromedriver)",
    ua: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36",
    source: "https://developer.chrome.com/docs/chromium/headless"
  },
  {
    tool: "headless Chrome",
    ua: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/74.0.3729.169 Safari/537.36",
    source: MONPERRUS
  },
  {
    tool: "Playwright request API",
    ua: "Playwright/1.49.1 (x64; ubuntu 22.04) node/20.18",
    source: "https://github.com/microsoft/playwright/blob/main/packages/playwright-core/src/server/utils/userAgent.ts"
  },
  {
    tool: "Playwright request API on CI",
    ua: "Playwright/1.49.1 (arm64; macOS 14.5) node/22.11 CI/1",
    source: "https://github.com/microsoft/playwright/blob/main/packages/playwright-core/src/server/utils/userAgent.ts"
  },
  {
    tool: "PhantomJS",
    ua: "Mozilla/5.0 (Windows NT 6.1; WOW64) AppleWebKit/534.34 (KHTML, like Gecko) PhantomJS/1.9.2 Safari/534.34",
    source: `${UA_PARSER}/browser/browser-all.json`
  },
  {
    tool: "Cypress",
    ua: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Cypress/3.3.2 Chrome/61.0.3163.100 Electron/2.0.18 Safari/537.36",
    source: `${ISBOT}/crawlers.yml`
  },
  {
    tool: "Splash",
    ua: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/602.1 (KHTML, like Gecko) splash Version/10.0 Safari/602.1",
    source: `${ISBOT}/crawlers.yml`
  },
  {
    tool: "Lighthouse / PageSpeed Insights",
    ua: "Mozilla/5.0 (Linux; Android 11; moto g power (2022)) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/136.0.0.0 Mobile Safari/537.36 Chrome-Lighthouse",
    source: `${ISBOT}/crawlers.yml`
  },
  {
    tool: "PageSpeed Insights (older)",
    ua: "Mozilla/5.0 (iPhone; U; CPU iPhone OS 4_0_1 like Mac OS X; en-us) AppleWebKit/537.4 (KHTML, like Gecko; Google Page Speed Insights) Version/4.0.5 Mobile/8A306 Safari/6531.22.7",
    source: `${ISBOT}/crawlers.yml`
  },
  {
    tool: "GoogleOther (headless)",
    ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GoogleOther) Chrome/117.0.5938.132 Safari/537.36",
    source: "https://developers.google.com/search/docs/crawling-indexing/overview-google-crawlers"
  },
  { tool: "Lightpanda", ua: "Lightpanda/1.0", source: "https://github.com/lightpanda-io/browser" },
  { tool: "curl", ua: "curl/8.5.0", source: "https://curl.se/docs/manpage.html#-A" },
  { tool: "Wget", ua: "Wget/1.21.1", source: `${UA_PARSER}/extension/cli.json` },
  { tool: "python-requests", ua: "python-requests/2.32", source: `${UA_PARSER}/extension/library.json` },
  { tool: "Go net/http", ua: "Go-http-client/1.1", source: "https://pkg.go.dev/net/http" },
  { tool: "Go net/http (HTTP/2)", ua: "Go-http-client/2.0", source: "https://pkg.go.dev/net/http" },
  { tool: "axios", ua: "axios/1.7.2", source: `${UA_PARSER}/extension/library.json` },
  { tool: "node-fetch", ua: "node-fetch/1.0 (+https://github.com/bitinn/node-fetch)", source: `${UA_PARSER}/extension/library.json` },
  { tool: "undici", ua: "undici", source: `${UA_PARSER}/extension/library.json` },
  { tool: "Node.js fetch", ua: "node", source: "https://github.com/nodejs/undici/blob/main/lib/web/fetch/index.js" },
  { tool: "got", ua: "got (https://github.com/sindresorhus/got)", source: `${ISBOT}/crawlers.yml` }
]

/**
 * Electron alone is not automation: these desktop apps are Electron and their users click
 * links as people (ua-parser-js lists them as in-app browsers).
 */
const ELECTRON_APPS: readonly Sample[] = [
  {
    ua: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Slack/4.39.90 Chrome/127.0.6533.72 Electron/13.1.9 Safari/537.36",
    source: `${UA_PARSER}/extension/inapp.json`
  },
  {
    ua: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) discord/0.0.26 Chrome/108.0.5359.215 Electron/22.3.2 Safari/537.36",
    source: `${UA_PARSER}/extension/inapp.json`
  },
  {
    ua: "Mozilla/5.0 (Macintosh; Intel Mac OS X 11_3_1) AppleWebKit/537.36 (KHTML, like Gecko) Teams/1.8.00.3758 Chrome/126.0.6478.261 Electron/31.7.7 Safari/537.36",
    source: `${UA_PARSER}/extension/inapp.json`
  },
  {
    ua: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Code/1.85.1 Chrome/114.0.5735.289 Electron/25.9.7 Safari/537.36",
    source: `${UA_PARSER}/extension/inapp.json`
  },
  {
    ua: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Notion/2.0.23 Chrome/91.0.4472.164 Electron/13.6.9 Safari/537.36",
    source: `${UA_PARSER}/extension/inapp.json`
  }
]

const truncate = (s: string, max = 90): string => (s.length <= max ? s : `${s.slice(0, max - 1)}…`)

describe("AUTOMATION_CLIENTS", () => {
  it("every entry has default User-Agents in the sample table, and every sample an entry", () => {
    expect(Object.keys(AUTOMATION_SAMPLES).sort()).toEqual(AUTOMATION_CLIENTS.map((client) => client.name).sort())
  })

  it.each(AUTOMATION_CLIENTS.map((client) => [client.name, client] as const))(
    "%s cites where its default comes from and compiles",
    (_name, client) => {
      expect(new URL(client.source).protocol).toBe("https:")
      expect(() => new RegExp(client.pattern)).not.toThrow()
    }
  )

  const samples = Object.entries(AUTOMATION_SAMPLES).flatMap(([name, list]) =>
    list.map((sample) => [name, truncate(sample.ua), sample] as const)
  )

  it.each(samples)("%s default is a bot: %s", (_name, _short, { ua }) => {
    expect(classifyAudience(ua, undefined)).toBe("bot")
  })
})

describe("automation defaults isbot already catches", () => {
  it.each(CAUGHT_BY_ISBOT.map((sample) => [sample.tool, truncate(sample.ua), sample] as const))(
    "%s is a bot: %s",
    (_tool, _short, { ua }) => {
      expect(classifyAudience(ua, undefined)).toBe("bot")
    }
  )
})

describe("Electron desktop apps", () => {
  it.each(ELECTRON_APPS.map((sample) => [truncate(sample.ua), sample] as const))("people: %s", (_short, { ua }) => {
    expect(classifyAudience(ua, undefined)).toBe("people")
  })
})
