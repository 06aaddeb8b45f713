import { AUTOMATION_CLIENTS } from "./automationClients.ts"

/**
 * Families of software that fetch pages with no person behind them and that `isbot` 5.2 does
 * not reliably list, each entry the token its software sends by default. They serve two layers
 * (docs/decisions.md#who-clicked): in a browser-shaped User-Agent a token here counts only
 * where software names itself (a product token or the entry after `compatible`), never inside a
 * device or platform name; in any other User-Agent it names the family that decided the bot.
 *
 * Every pattern is matched without case against the software names of a User-Agent joined by
 * spaces, so a pattern may span several names (`Tiny Tiny RSS`), and must not match a browser's
 * own product tokens.
 */
export type BotFamily = "probe" | "monitor" | "renderer" | "feed-reader" | "http-library" | "automation" | "crawler" | "proxy"

export interface BotToken {
  readonly family: BotFamily
  readonly name: string
  /** Regular-expression source, matched without case. */
  readonly pattern: string
  /** Where the default User-Agent is defined, or a public collection of real ones showing it. */
  readonly source: string
}

const ISBOT = "https://github.com/omrilotan/isbot/blob/344052da664bde49579e21f1e62349280791efb3/fixtures"
const MATOMO = "https://github.com/matomo-org/device-detector/blob/3856a28692d45317d3f15f6f81ca31a06067182a/Tests/fixtures"
const CRAWLER_DETECT = "https://github.com/JayBizzle/Crawler-Detect/blob/f7926d40cb01c8f2488467dc0b476fd12d0359a8/tests/data/user_agent/crawlers.txt"
const BROWSCAP = "https://github.com/browscap/browscap/blob/6c0c9208f9314f062c5ac45d933c1a419e05f421/tests/issues"
const UA_PARSER = "https://github.com/faisalman/ua-parser-js/blob/18d39b53dd803710cb8e76856d18c1dcf7533d11/test/data/ua"

/** Health checks of orchestrators, load balancers, DNS failover and service meshes. */
const PROBES: readonly BotToken[] = [
  { family: "probe", name: "Kubernetes", pattern: "\\bkube-probe/", source: "https://github.com/kubernetes/kubernetes/blob/master/pkg/probe/http/request.go" },
  { family: "probe", name: "AWS Elastic Load Balancing", pattern: "\\bELB-HealthChecker/", source: `${MATOMO}/bots.yml` },
  { family: "probe", name: "Google Cloud load balancing", pattern: "\\bGoogleHC/", source: CRAWLER_DETECT },
  { family: "probe", name: "Consul", pattern: "\\bConsul Health Check\\b", source: "https://github.com/hashicorp/consul/blob/main/agent/checks/check_test.go" },
  { family: "probe", name: "Envoy", pattern: "\\bEnvoy/HC\\b", source: "https://github.com/envoyproxy/envoy/blob/main/source/common/http/headers.h" },
  { family: "probe", name: "Amazon Route 53", pattern: "\\bRoute ?53[- ]Health[- ]Check", source: `${MATOMO}/bots.yml` },
  { family: "probe", name: "Prometheus blackbox exporter", pattern: "\\bBlackbox Exporter/", source: `${MATOMO}/bots.yml` },
  { family: "probe", name: "Prometheus", pattern: "\\bPrometheus/\\d", source: `${ISBOT}/crawlers.yml` },
  { family: "probe", name: "Google Cloud uptime checks", pattern: "\\bGoogleStackdriverMonitoring-UptimeChecks\\b", source: `${MATOMO}/bots.yml` },
  { family: "probe", name: "Cloudflare load balancing", pattern: "\\bCloudflare-Traffic-Manager/", source: `${MATOMO}/bots.yml` }
]

/** Uptime, synthetic and performance monitoring services and agents. */
const MONITORS: readonly BotToken[] = [
  { family: "monitor", name: "UptimeRobot", pattern: "\\bUptimeRobot/", source: `${MATOMO}/bots.yml` },
  { family: "monitor", name: "Pingdom", pattern: "\\bPingdom", source: `${MATOMO}/bots.yml` },
  { family: "monitor", name: "StatusCake", pattern: "\\bStatusCake", source: `${MATOMO}/bots.yml` },
  { family: "monitor", name: "Site24x7", pattern: "\\bSite24x7\\b", source: `${MATOMO}/bots.yml` },
  { family: "monitor", name: "New Relic", pattern: "\\bNewRelicPinger/", source: CRAWLER_DETECT },
  { family: "monitor", name: "Datadog", pattern: "\\bDatadog(?: ?Agent\\b| ?Synthetics?\\b)", source: `${ISBOT}/crawlers.yml` },
  { family: "monitor", name: "Better Stack (Better Uptime)", pattern: "\\bBetter ?Uptime\\b", source: `${MATOMO}/bots.yml` },
  { family: "monitor", name: "Uptime Kuma", pattern: "\\bUptime-Kuma/", source: `${MATOMO}/bots.yml` },
  { family: "monitor", name: "Nagios / Icinga check_http", pattern: "\\bcheck_http/|\\bnagios-plugins\\b", source: `${MATOMO}/bots.yml` },
  { family: "monitor", name: "Zabbix", pattern: "\\bZabbix\\b", source: `${ISBOT}/downloaded/monperrus.json` },
  { family: "monitor", name: "Monit", pattern: "\\bMonit/\\d", source: `${ISBOT}/crawlers.yml` },
  { family: "monitor", name: "Checkly", pattern: "\\bCheckly\\b", source: `${ISBOT}/downloaded/monperrus.json` },
  { family: "monitor", name: "Catchpoint", pattern: "\\bCatchpoint\\b", source: `${ISBOT}/crawlers.yml` },
  { family: "monitor", name: "Dynatrace synthetic monitors", pattern: "\\bRuxitSynthetic/", source: `${ISBOT}/crawlers.yml` },
  { family: "monitor", name: "Freshping", pattern: "\\bFreshping", source: `${ISBOT}/downloaded/kikobeats.json` },
  { family: "monitor", name: "HetrixTools", pattern: "\\bHetrixTools\\b", source: `${ISBOT}/downloaded/monperrus.json` },
  { family: "monitor", name: "updown.io", pattern: "\\bupdown\\.io\\b", source: `${ISBOT}/downloaded/monperrus.json` },
  { family: "monitor", name: "Uptime.com", pattern: "\\bUptime/[\\d.]+ \\(https://uptime\\.com", source: `${MATOMO}/bots.yml` },
  { family: "monitor", name: "Pulsetic", pattern: "\\bpulsetic\\.com\\b", source: `${ISBOT}/downloaded/monperrus.json` },
  { family: "monitor", name: "WebPageTest", pattern: "\\bPTST/", source: `${MATOMO}/bots.yml` },
  { family: "monitor", name: "GTmetrix", pattern: "\\bGTmetrix\\b", source: `${MATOMO}/bots.yml` },
  { family: "monitor", name: "Elastic Synthetics", pattern: "\\bElastic/Synthetics\\b", source: `${MATOMO}/bots.yml` },
  { family: "monitor", name: "SpeedCurve", pattern: "\\bSpeedCurve\\b", source: `${ISBOT}/crawlers.yml` },
  // These four name themselves where a browser names its platform: "(X11; Linux x86_64; Rigor)".
  { family: "monitor", name: "Splunk Synthetic Monitoring (Rigor)", pattern: "\\bRigor\\b|\\bSplunk Synthetics\\b", source: `${ISBOT}/crawlers.yml` },
  { family: "monitor", name: "Neustar Web Performance Management", pattern: "\\bNeustar WPM\\b", source: CRAWLER_DETECT },
  { family: "monitor", name: "ip-label", pattern: "\\biplabel\\b", source: `${MATOMO}/bots.yml` },
  { family: "monitor", name: "Datanyze", pattern: "\\bDatanyze\\b", source: `${MATOMO}/bots.yml` },
  { family: "monitor", name: "DebugBear", pattern: "\\bDebugBear\\b", source: CRAWLER_DETECT }
]

/**
 * Headless browsers and the services that render pages with them. Rendertron and Puppeteer send
 * headless Chrome's own User-Agent (`HeadlessChrome/`), except in Rendertron's mobile mode, which
 * sends an ordinary phone's string that nothing tells from a person's
 * (https://github.com/GoogleChrome/rendertron/blob/main/src/renderer.ts).
 */
const RENDERERS: readonly BotToken[] = [
  { family: "renderer", name: "Headless Chrome (Puppeteer, Playwright, Selenium)", pattern: "\\bHeadlessChrome\\b", source: `${MATOMO}/bots.yml` },
  { family: "renderer", name: "PhantomJS", pattern: "\\bPhantomJS\\b", source: `${MATOMO}/bots.yml` },
  { family: "renderer", name: "Prerender", pattern: "\\bPrerender\\b", source: "https://github.com/prerender/prerender" },
  { family: "renderer", name: "Puppeteer", pattern: "\\bPuppeteer\\b", source: `${ISBOT}/downloaded/monperrus.json` },
  { family: "renderer", name: "Playwright", pattern: "\\bPlaywright/", source: `${ISBOT}/crawlers.yml` },
  { family: "renderer", name: "Lighthouse", pattern: "\\bChrome-Lighthouse\\b|\\bLighthouse/\\d", source: `${MATOMO}/bots.yml` },
  { family: "renderer", name: "PageSpeed Insights", pattern: "\\bGoogle Page Speed Insights\\b", source: `${MATOMO}/bots.yml` },
  { family: "renderer", name: "Splash", pattern: "\\bsplash\\b", source: `${ISBOT}/crawlers.yml` },
  { family: "renderer", name: "Cypress", pattern: "\\bCypress/", source: `${ISBOT}/crawlers.yml` },
  { family: "renderer", name: "Selenium", pattern: "\\bSelenium\\b", source: `${ISBOT}/crawlers.yml` }
]

/** Feed readers and the services that poll feeds for them. */
const FEED_READERS: readonly BotToken[] = [
  { family: "feed-reader", name: "Feedly", pattern: "\\bFeedly", source: `${MATOMO}/bots.yml` },
  { family: "feed-reader", name: "Inoreader", pattern: "\\bInoreader\\b", source: `${MATOMO}/bots.yml` },
  { family: "feed-reader", name: "NewsBlur", pattern: "\\bNewsBlur\\b", source: `${MATOMO}/bots.yml` },
  { family: "feed-reader", name: "Tiny Tiny RSS", pattern: "\\bTiny Tiny RSS\\b", source: `${MATOMO}/bots.yml` },
  { family: "feed-reader", name: "FreshRSS", pattern: "\\bFreshRSS\\b", source: `${MATOMO}/bots.yml` },
  { family: "feed-reader", name: "NetNewsWire", pattern: "\\bNetNewsWire\\b", source: `${MATOMO}/feed_reader.yml` },
  { family: "feed-reader", name: "Miniflux", pattern: "\\bMiniflux\\b", source: `${ISBOT}/downloaded/monperrus.json` },
  { family: "feed-reader", name: "Feedbin", pattern: "\\bFeedbin\\b", source: `${MATOMO}/bots.yml` },
  { family: "feed-reader", name: "Feedspot", pattern: "\\bFeedspot", source: `${MATOMO}/bots.yml` },
  { family: "feed-reader", name: "The Old Reader", pattern: "\\btheoldreader\\.com\\b", source: `${ISBOT}/downloaded/user-agents.net.json` },
  { family: "feed-reader", name: "Liferea", pattern: "\\bLiferea/", source: `${MATOMO}/feed_reader.yml` },
  { family: "feed-reader", name: "Akregator", pattern: "\\bAkregator/", source: `${MATOMO}/feed_reader.yml` },
  { family: "feed-reader", name: "QuiteRSS", pattern: "\\bQuiteRSS/", source: `${MATOMO}/feed_reader.yml` },
  { family: "feed-reader", name: "RSSOwl", pattern: "\\bRSSOwl/", source: `${MATOMO}/feed_reader.yml` },
  { family: "feed-reader", name: "CommaFeed", pattern: "\\bCommaFeed/", source: `${MATOMO}/bots.yml` },
  { family: "feed-reader", name: "Nextcloud News", pattern: "\\bNextCloud-News/", source: `${ISBOT}/downloaded/monperrus.json` },
  { family: "feed-reader", name: "Newsboat", pattern: "\\bNewsboat/", source: `${MATOMO}/podcasting.yml` },
  { family: "feed-reader", name: "BazQux", pattern: "\\bBazQux/", source: `${MATOMO}/bots.yml` },
  { family: "feed-reader", name: "Netvibes", pattern: "\\bNetvibes \\(", source: `${MATOMO}/bots.yml` },
  { family: "feed-reader", name: "Feeder", pattern: "\\bfeeder\\.co\\b", source: CRAWLER_DETECT },
  { family: "feed-reader", name: "Bloglovin", pattern: "\\bBloglovin/", source: `${MATOMO}/bots.yml` },
  { family: "feed-reader", name: "Superfeedr", pattern: "\\bSuperfeedr\\b", source: `${MATOMO}/bots.yml` },
  { family: "feed-reader", name: "Vienna", pattern: "\\bVienna/\\d", source: `${BROWSCAP}/issue-1323.php` },
  { family: "feed-reader", name: "Fever", pattern: "\\bFever/[\\d.]+ \\(Feed Parser", source: `${MATOMO}/bots.yml` },
  { family: "feed-reader", name: "Reeder", pattern: "\\bReeder/", source: `${MATOMO}/feed_reader.yml` },
  { family: "feed-reader", name: "Google Feedfetcher", pattern: "\\bFeedFetcher-Google\\b", source: "https://developers.google.com/crawling/docs/crawlers-fetchers/google-user-triggered-fetchers" },
  { family: "feed-reader", name: "Flipboard", pattern: "\\bFlipboard(?:RSS|Proxy)\\b", source: `${MATOMO}/bots.yml` },
  { family: "feed-reader", name: "Blogtrottr", pattern: "\\bBlogtrottr\\b", source: `${ISBOT}/crawlers.yml` },
  { family: "feed-reader", name: "NewsGator", pattern: "\\bNewsGator", source: `${MATOMO}/bots.yml` }
]

/** Services that fetch a page for a person and serve it to them rewritten (translated). */
const PROXIES: readonly BotToken[] = [
  { family: "proxy", name: "Yandex Translate", pattern: "\\bYandex\\.Translate\\b", source: CRAWLER_DETECT }
]

/** HTTP client libraries and command-line tools, and the HTTP stacks native apps fetch with. */
const HTTP_LIBRARIES: readonly BotToken[] = [
  { family: "http-library", name: "Python Requests", pattern: "\\bpython-requests/", source: `${UA_PARSER}/extension/library.json` },
  { family: "http-library", name: "Python urllib", pattern: "\\bPython-urllib\\b|\\bpython-urllib3/", source: `${UA_PARSER}/extension/library.json` },
  { family: "http-library", name: "aiohttp", pattern: "\\baiohttp/", source: `${UA_PARSER}/extension/library.json` },
  { family: "http-library", name: "HTTPX", pattern: "\\bpython-httpx/", source: `${UA_PARSER}/extension/library.json` },
  { family: "http-library", name: "Go net/http", pattern: "\\bGo-http-client/", source: `${UA_PARSER}/extension/library.json` },
  { family: "http-library", name: "OkHttp", pattern: "\\bokhttp\\b", source: `${UA_PARSER}/extension/library.json` },
  { family: "http-library", name: "Axios", pattern: "\\baxios/", source: `${UA_PARSER}/extension/library.json` },
  { family: "http-library", name: "node-fetch", pattern: "\\bnode-fetch\\b", source: `${UA_PARSER}/extension/library.json` },
  { family: "http-library", name: "undici (Node.js fetch)", pattern: "\\bundici\\b", source: `${MATOMO}/podcasting.yml` },
  { family: "http-library", name: "Node.js", pattern: "\\bNode\\.js/|\\(Node\\.js v", source: `${UA_PARSER}/extension/library.json` },
  { family: "http-library", name: "got", pattern: "\\bgot \\(https://github\\.com/sindresorhus/got\\)", source: `${MATOMO}/podcasting.yml` },
  { family: "http-library", name: "curl", pattern: "\\bcurl/|\\blibcurl/", source: `${UA_PARSER}/extension/cli.json` },
  { family: "http-library", name: "Wget", pattern: "\\bWget/", source: `${UA_PARSER}/extension/cli.json` },
  { family: "http-library", name: "Java", pattern: "\\bJava/\\d|\\bJava-http-client/", source: `${UA_PARSER}/extension/library.json` },
  { family: "http-library", name: "Apache HttpClient", pattern: "\\bApache-HttpClient/|\\bCommons-HttpClient/", source: `${UA_PARSER}/extension/library.json` },
  { family: "http-library", name: "libwww-perl", pattern: "\\blibwww-perl/|\\bLWP::Simple/", source: `${UA_PARSER}/extension/library.json` },
  { family: "http-library", name: "WWW::Mechanize", pattern: "\\bWWW-Mechanize/", source: CRAWLER_DETECT },
  { family: "http-library", name: "PHP", pattern: "\\bGuzzleHttp/|\\bPHP/\\d", source: `${UA_PARSER}/extension/library.json` },
  { family: "http-library", name: "Ruby", pattern: "\\bFaraday v|\\brest-client/|\\bhttp\\.rb/|\\bTyphoeus\\b", source: `${ISBOT}/crawlers.yml` },
  { family: "http-library", name: "HTTPie", pattern: "\\bHTTPie/", source: `${UA_PARSER}/extension/cli.json` },
  { family: "http-library", name: "Postman", pattern: "\\bPostmanRuntime/", source: `${UA_PARSER}/extension/library.json` },
  { family: "http-library", name: "Deno", pattern: "\\bDeno/", source: `${MATOMO}/podcasting.yml` },
  { family: "http-library", name: "Bun", pattern: "\\bBun/", source: `${UA_PARSER}/extension/library.json` },
  { family: "http-library", name: "reqwest", pattern: "\\breqwest/", source: `${MATOMO}/podcasting.yml` },
  { family: "http-library", name: "Scrapy", pattern: "\\bScrapy/", source: `${UA_PARSER}/extension/library.json` },
  { family: "http-library", name: "Colly", pattern: "\\bcolly\\b", source: `${MATOMO}/bots.yml` },
  { family: "http-library", name: "RestSharp", pattern: "\\bRestSharp/", source: CRAWLER_DETECT },
  { family: "http-library", name: "Async HTTP Client", pattern: "\\bAHC/\\d", source: `${MATOMO}/bots.yml` },
  { family: "http-library", name: "lua-resty-http", pattern: "\\blua-resty-http/", source: `${UA_PARSER}/extension/library.json` },
  { family: "http-library", name: "fasthttp", pattern: "\\bfasthttp\\b", source: CRAWLER_DETECT },
  { family: "http-library", name: "Symfony HttpClient", pattern: "\\bSymfony (?:HttpClient|BrowserKit)\\b", source: `${MATOMO}/podcasting.yml` },
  { family: "http-library", name: "gRPC", pattern: "\\bgrpc-[a-z]+/", source: `${ISBOT}/crawlers.yml` }
]

/**
 * Google's crawlers and fetchers by the names Google documents. isbot's own `google` pattern
 * cannot be asked about a browser's product tokens (it matches `GoogleTV` and an Android app's
 * `Channel/googleplay`), so these stand in for it there.
 */
const GOOGLE_CRAWLERS: readonly BotToken[] = [
  {
    family: "crawler",
    name: "Google crawlers and fetchers",
    pattern:
      "\\bGoogle-[A-Za-z][\\w-]*|\\b\\w+-Google\\b|\\bGoogle(?:bot|Other|Producer|ImageProxy|AdSenseInfeed|Messages|weblight)\\b|\\bGoogle (?:Favicon|Search Console|Web Preview|Page Speed Insights|Keyword Suggestion)\\b",
    source: "https://developers.google.com/search/docs/crawling-indexing/overview-google-crawlers"
  }
]

export const BOT_TOKENS: readonly BotToken[] = [
  ...PROBES,
  ...MONITORS,
  ...RENDERERS,
  ...FEED_READERS,
  ...HTTP_LIBRARIES,
  ...GOOGLE_CRAWLERS,
  ...PROXIES,
  ...AUTOMATION_CLIENTS.map((client) => ({ family: "automation" as const, name: client.name, pattern: client.pattern, source: client.source }))
]
