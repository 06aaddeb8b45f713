import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { classifyUserAgent } from "../../engine/visitors/classifyUserAgent.ts"

/**
 * Where a bot's name stands decides (docs/decisions.md#who-clicked): inside a device or platform
 * name ("Cubot", "XBot Junior", "iHunt S60 Discovery Pro", "M BOT 60") it says nothing about who
 * is clicking; as a product token (`Name/version`, at the top level or after `compatible`) it is
 * the software naming itself. Browser strings are built from real browsers' templates with a
 * generated device or platform name, then with a bot's product token added.
 */

const SEED = 28
const RUNS = 400

/** Words of isbot's list and of the bot lists here that device and platform names happen to contain. */
const BOT_WORDS = ["bot", "Bot", "BOT", "Robot", "robotic", "Spider", "spider", "Crawler", "crawl", "Scan", "Scanner", "Monitor", "Probe", "Discovery", "Preview", "Fetch", "Archive", "Feed", "RSS", "Check", "Proxy", "Agent", "Java", "Tools", "News", "Download", "Headless", "Uptime", "Render", "Synthetic", "Validator"]

/** Brands put before the word, so a generated name never is a bot's own name ("Googlebot"). */
const BRANDS = ["Cu", "X", "M ", "B ", "ID ", "GLX ", "iHunt S60 ", "Power", "Nova", "Tecno ", "Zen ", "Ultra", "VR ", "C "]

const alnum = (max: number) => fc.string({ unit: fc.constantFrom(..."ABCDEFGHKLMNPRSTXZabcdefghkmnprstxz0123456789"), maxLength: max })

const deviceName = fc
  .tuple(fc.constantFrom(...BRANDS), fc.constantFrom("", " ", "_", "-"), fc.constantFrom(...BOT_WORDS), fc.constantFrom("", " ", "_", "-"), alnum(5))
  .map(([brand, before, word, after, model]) => `${brand}${before}${word}${model === "" ? "" : `${after}${model}`}`.trim())

const version = fc.tuple(fc.integer({ min: 40, max: 150 }), fc.integer({ min: 0, max: 9999 })).map(([major, build]) => `${major}.0.${build}.0`)
const androidVersion = fc.constantFrom("4.4.2", "7.0", "9", "10", "11", "12", "13", "14", "15")
const build = fc.constantFrom("QP1A.190711.020", "RP1A.200720.011", "TP1A.220624.014", "UP1A.231005.007", "JDQ39")

/** Real browsers' User-Agent layouts, with the generated name where the device or platform goes. */
const browserWithName = fc.oneof(
  fc.tuple(androidVersion, deviceName, build, version).map(([av, d, b, cv]) => `Mozilla/5.0 (Linux; Android ${av}; ${d} Build/${b}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${cv} Mobile Safari/537.36`),
  fc.tuple(androidVersion, deviceName, version).map(([av, d, cv]) => `Mozilla/5.0 (Linux; Android ${av}; ${d}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${cv} Mobile Safari/537.36`),
  fc.tuple(deviceName).map(([d]) => `Mozilla/5.0 (Linux; U; Android 4.2.2; en-us; ${d} Build/JDQ39) AppleWebKit/534.30 (KHTML, like Gecko) Version/4.0 Mobile Safari/534.30`),
  fc.tuple(androidVersion, deviceName, version).map(([av, d, cv]) => `Mozilla/5.0 (Linux; Android ${av}; ${d}) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/23.0 Chrome/${cv} Mobile Safari/537.36`),
  fc.tuple(androidVersion, deviceName, build, version).map(([av, d, b, cv]) => `Mozilla/5.0 (Linux; Android ${av}; ${d} Build/${b}; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/${cv} Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/450.0.0.42.108;]`),
  fc.tuple(deviceName).map(([d]) => `Mozilla/5.0 (Mobile; ${d}; rv:48.0) Gecko/48.0 Firefox/48.0 KAIOS/2.5`),
  fc.tuple(deviceName).map(([d]) => `Mozilla/5.0 (Linux; Tizen 5.5; ${d}) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/2.0 Chrome/69.0.3497.106 Mobile Safari/537.36`),
  // A platform name: a Linux distribution, as Firefox writes it.
  fc.tuple(deviceName, fc.integer({ min: 60, max: 140 })).map(([p, v]) => `Mozilla/5.0 (X11; ${p}; Linux x86_64; rv:${v}.0) Gecko/20100101 Firefox/${v}.0`)
)

/** Bots' own names: real ones, and made-up names built the way crawlers name themselves. */
const botName = fc.oneof(
  fc.constantFrom("Googlebot", "bingbot", "AhrefsBot", "YandexBot", "Bytespider", "PetalBot", "GPTBot", "HeadlessChrome", "PhantomJS", "Chrome-Lighthouse", "kube-probe", "ELB-HealthChecker", "UptimeRobot", "PingdomTMS", "StatusCake", "Feedly", "Inoreader", "NewsBlur", "FreshRSS", "python-requests", "Go-http-client", "okhttp", "curl", "Wget", "Scrapy", "Prerender", "Playwright"),
  fc.tuple(alnum(6).filter((s) => /^[A-Za-z]/.test(s)), fc.constantFrom("Bot", "bot", "Spider", "Crawler", "Fetcher", "Monitor", "Scraper")).map(([stem, kind]) => `${stem}${kind}`)
)

const withProductToken = fc.tuple(browserWithName, botName, fc.constantFrom("1.0", "2.1", "0.9.3"), fc.boolean()).map(([ua, bot, v, asCompatible]) =>
  asCompatible ? `${ua} (compatible; ${bot}/${v})` : `${ua} ${bot}/${v}`
)

describe("a bot's name counts where software names itself, not inside a device or platform name", () => {
  it("a browser string whose device or platform name contains a bot word is a person's", () => {
    fc.assert(
      fc.property(browserWithName, (ua) => {
        const verdict = classifyUserAgent(ua)
        expect(verdict.audience, `${ua} (${verdict.rule}: ${verdict.evidence})`).toBe("people")
      }),
      { seed: SEED, numRuns: RUNS }
    )
  })

  it("the same string with a bot's product token added is a bot", () => {
    fc.assert(
      fc.property(withProductToken, (ua) => {
        const verdict = classifyUserAgent(ua)
        expect(verdict.audience, `${ua} (${verdict.rule}: ${verdict.evidence})`).toBe("bot")
      }),
      { seed: SEED, numRuns: RUNS }
    )
  })

  it.each([
    ["Mozilla/5.0 (Linux; Android 8.1.0; XBot_Senior Build/O11019) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/65.0.3325.109 Mobile Safari/537.36", "people"],
    ["Mozilla/5.0 (Linux; Android 8.1.0; XBot_Senior Build/O11019) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/65.0.3325.109 Mobile Safari/537.36 XBot/1.0", "bot"],
    ["Mozilla/5.0 (Linux; Android 4.4.2; GLX SpiderI Build/KOT49H) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/51.0.2704.81 Mobile Safari/537.36", "people"],
    ["Mozilla/5.0 (Linux; Android 4.4.2; GLX SpiderI Build/KOT49H) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/51.0.2704.81 Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)", "bot"],
    ["Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/134.0.6998.165 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "bot"],
    // A device named exactly like a monitor's vendor stays a person's unless it is the vendor's own name.
    ["Mozilla/5.0 (X11; Linux x86_64; Rigor) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/80.0.3987.106 Safari/537.36", "bot"]
  ])("%s is %s", (ua, audience) => {
    expect(classifyUserAgent(ua).audience).toBe(audience)
  })
})
