import { afterEach, describe, expect, it, vi } from "vitest"
import { type ClickRecord, type ClickSink, MemoryClickSink, type RawClick } from "../../shared/clicks/click.ts"
import { ClickCollector, deriveClick } from "../../engine/clicks/collector.ts"
import { bundledCountryDatabase, makeGeoLookup } from "../../engine/geo/geo.ts"
import { sleep } from "../support/time.ts"

/** docs/decisions.md#who-clicked: which clicks count, and what a click record holds. */

const SECRET = "click-secret"
const T = Date.parse("2030-06-15T12:00:00.000Z")
const DAY = 86_400_000

const UA = {
  chromeWindows: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
  safariIphone: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
  chromeAndroid: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36",
  firefoxMac: "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.4; rv:125.0) Gecko/20100101 Firefox/125.0",
  ipad: "Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
  curl: "curl/8.5.0",
  googlebot: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
  gptbot: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.0; +https://openai.com/gptbot)",
  claudebot: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)",
  oaiSearch: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot",
  python: "python-requests/2.31.0",
  chatgptUser: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot",
  claudeUser: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)",
  perplexityUser: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)"
}

const raw = (fields: Partial<RawClick> = {}): RawClick => ({
  timestamp: T,
  workspaceId: "ws_1",
  linkId: "lnk_1",
  domain: "go.example.com",
  slug: "abc",
  url: "https://example.com/landing",
  variant: null,
  ip: "8.8.8.8",
  userAgent: UA.chromeWindows,
  referer: "",
  geoHeader: "",
  signatureAgent: "",
  ...fields
})

const mmdb = makeGeoLookup({ header: undefined, countryDatabase: bundledCountryDatabase(), cityDatabase: undefined })
const withHeader = makeGeoLookup({ header: "CF-IPCountry", countryDatabase: bundledCountryDatabase(), cityDatabase: undefined })
const noDatabase = makeGeoLookup({ header: undefined, countryDatabase: undefined, cityDatabase: undefined })

const derive = (fields: Partial<RawClick> = {}, geo = mmdb, secret = SECRET) => deriveClick(raw(fields), geo, secret)

describe("audience: bots dropped, people and agents kept", () => {
  const rows: ReadonlyArray<readonly [name: string, userAgent: string, signatureAgent: string, audience: "people" | "agent" | null]> = [
    ["Chrome on Windows", UA.chromeWindows, "", "people"],
    ["Safari on iPhone", UA.safariIphone, "", "people"],
    ["Chrome on Android", UA.chromeAndroid, "", "people"],
    ["Firefox on macOS", UA.firefoxMac, "", "people"],
    ["curl", UA.curl, "", null],
    ["Googlebot", UA.googlebot, "", null],
    ["GPTBot (training crawler)", UA.gptbot, "", null],
    ["ClaudeBot (training crawler)", UA.claudebot, "", null],
    ["OAI-SearchBot (search crawler)", UA.oaiSearch, "", null],
    ["python-requests", UA.python, "", null],
    ["no User-Agent", "", "", null],
    ["blank User-Agent", "   ", "", null],
    ["ChatGPT-User", UA.chatgptUser, "", "agent"],
    ["bare ChatGPT-User token", "ChatGPT-User/1.0", "", "agent"],
    ["Claude-User", UA.claudeUser, "", "agent"],
    ["Perplexity-User", UA.perplexityUser, "", "agent"],
    ["Signature-Agent header with a browser UA", UA.chromeWindows, '"https://chatgpt.com"', "agent"],
    ["Signature-Agent header with a bot UA", UA.curl, '"https://agent.example"', "agent"],
    ["Signature-Agent header without a UA", "", '"https://agent.example"', "agent"]
  ]
  it.each(rows)("%s", (_name, userAgent, signatureAgent, audience) => {
    const record = derive({ userAgent, signatureAgent })
    if (audience === null) expect(record).toBeNull()
    else expect(record?.audience).toBe(audience)
  })
})

describe("country", () => {
  const rows: ReadonlyArray<readonly [name: string, geo: ReturnType<typeof makeGeoLookup>, ip: string, header: string, country: string | null]> = [
    ["MMDB: 8.8.8.8", mmdb, "8.8.8.8", "", "US"],
    ["MMDB: 81.2.69.160", mmdb, "81.2.69.160", "", "GB"],
    ["MMDB: IPv6 2001:4860:4860::8888", mmdb, "2001:4860:4860::8888", "", "US"],
    ["MMDB: IPv4-mapped (a dual-stack proxy's X-Forwarded-For)", mmdb, "::ffff:81.2.69.160", "", "GB"],
    ["MMDB: IPv4-mapped, upper case", mmdb, "::FFFF:8.8.8.8", "", "US"],
    ["MMDB: loopback", mmdb, "127.0.0.1", "", null],
    ["MMDB: private range", mmdb, "10.1.2.3", "", null],
    ["MMDB: no address", mmdb, "", "", null],
    ["MMDB: not an address", mmdb, "not-an-ip", "", null],
    ["header not configured: a sent header is ignored", mmdb, "8.8.8.8", "DE", "US"],
    ["header configured: it wins over the MMDB", withHeader, "8.8.8.8", "DE", "DE"],
    ["header configured: lower case is normalised", withHeader, "8.8.8.8", "fr", "FR"],
    ["header configured but empty: MMDB", withHeader, "81.2.69.160", "", "GB"],
    ["header configured, not a country code: MMDB", withHeader, "8.8.8.8", "T1", "US"],
    ["header configured, garbage: MMDB", withHeader, "8.8.8.8", "<script>", "US"],
    ["header configured, no address", withHeader, "", "JP", "JP"],
    ["no database, no header", noDatabase, "8.8.8.8", "", null]
  ]
  it.each(rows)("%s", (_name, geo, ip, geoHeader, country) => {
    expect(derive({ ip, geoHeader }, geo)?.country).toBe(country)
    expect(geo.country(ip, geoHeader)).toBe(country)
  })

  it("region and city stay null without a city database", () => {
    expect(derive({ ip: "81.2.69.160" })).toMatchObject({ country: "GB", region: null, city: null })
  })
})

describe("device, browser and OS", () => {
  const rows: ReadonlyArray<readonly [name: string, userAgent: string, device: string, browser: string, os: string]> = [
    ["Chrome on Windows", UA.chromeWindows, "desktop", "Chrome", "Windows"],
    ["Safari on iPhone", UA.safariIphone, "mobile", "Safari", "iOS"],
    ["Chrome on Android", UA.chromeAndroid, "mobile", "Chrome", "Android"],
    ["Firefox on macOS", UA.firefoxMac, "desktop", "Firefox", "macOS"],
    ["Safari on iPad", UA.ipad, "tablet", "Safari", "iOS"]
  ]
  it.each(rows)("%s", (_name, userAgent, device, browser, os) => {
    expect(derive({ userAgent })).toMatchObject({ device, browser, os })
  })

  it("an agent without a parsable UA still gets the fields filled", () => {
    const record = derive({ userAgent: "", signatureAgent: '"https://agent.example"' })
    expect(record).toMatchObject({ audience: "agent", device: "other", browser: "Unknown", os: "Unknown" })
  })
})

describe("referer host", () => {
  it.each([
    ["https://www.google.com/search?q=x", "www.google.com"],
    ["https://WWW.Example.COM:8443/path", "www.example.com"],
    ["http://t.co/abc", "t.co"],
    ["", null],
    ["not a url", null],
    ["/relative/path", null]
  ])("%j → %j", (referer, host) => {
    expect(derive({ referer })?.refererHost).toBe(host)
  })
})

describe("utm values come from the destination URL", () => {
  it.each([
    [
      "all five",
      "https://example.com/p?utm_source=news&utm_medium=email&utm_campaign=spring&utm_term=shoes&utm_content=hero#x",
      { utmSource: "news", utmMedium: "email", utmCampaign: "spring", utmTerm: "shoes", utmContent: "hero" }
    ],
    ["some", "https://example.com/p?utm_source=a%20b&x=1", { utmSource: "a b", utmMedium: null, utmCampaign: null, utmTerm: null, utmContent: null }],
    ["none", "https://example.com/p?x=1", { utmSource: null, utmMedium: null, utmCampaign: null, utmTerm: null, utmContent: null }],
    ["an intent hand-off is not parsed as a web URL with utm", "not a url", { utmSource: null, utmMedium: null, utmCampaign: null, utmTerm: null, utmContent: null }]
  ])("%s", (_name, url, utm) => {
    expect(derive({ url })).toMatchObject({ ...utm, url })
  })
})

describe("the record", () => {
  it("carries the click's identity, time and A/B variant", () => {
    expect(derive({ variant: 2 })).toMatchObject({
      timestamp: T,
      workspaceId: "ws_1",
      linkId: "lnk_1",
      domain: "go.example.com",
      slug: "abc",
      url: "https://example.com/landing",
      abVariant: 2,
      audience: "people"
    })
    expect(derive({ variant: null })?.abVariant).toBeNull()
  })

  it("holds no IP address anywhere", () => {
    for (const ip of ["203.0.113.77", "81.2.69.160", "2001:4860:4860::8888"]) {
      const record = derive({ ip })!
      expect(Object.keys(record)).not.toContain("ip")
      expect(JSON.stringify(record)).not.toContain(ip)
      expect(record.visitorHash).toMatch(/^[0-9a-f]{1,16}$/)
    }
  })

  describe("visitorHash", () => {
    const hash = (fields: Partial<RawClick>, secret = SECRET) => derive(fields, mmdb, secret)!.visitorHash
    const base = { ip: "203.0.113.77", userAgent: UA.safariIphone, timestamp: Date.parse("2030-06-15T00:00:00.000Z") }
    const same: ReadonlyArray<readonly [name: string, fields: Partial<RawClick>]> = [
      ["later the same UTC day", { ...base, timestamp: Date.parse("2030-06-15T23:59:59.999Z") }],
      ["other link, referer, country header and destination", { ...base, linkId: "lnk_2", referer: "https://t.co/", geoHeader: "DE", url: "https://other.example/" }]
    ]
    it.each(same)("stable: %s", (_name, fields) => {
      expect(hash(fields)).toBe(hash(base))
    })
    const different: ReadonlyArray<readonly [name: string, fields: Partial<RawClick>, secret: string]> = [
      ["the next UTC day", { ...base, timestamp: Date.parse("2030-06-16T00:00:00.000Z") }, SECRET],
      ["a day earlier", { ...base, timestamp: base.timestamp - 1 }, SECRET],
      ["another IP", { ...base, ip: "203.0.113.78" }, SECRET],
      ["another User-Agent", { ...base, userAgent: UA.chromeAndroid }, SECRET],
      ["another engine secret", base, "other-secret"]
    ]
    it.each(different)("differs: %s", (_name, fields, secret) => {
      expect(hash(fields, secret)).not.toBe(hash(base))
    })

    it("rotates every day for the same visitor", () => {
      const days = new Set(Array.from({ length: 7 }, (_, i) => hash({ ...base, timestamp: base.timestamp + i * DAY })))
      expect(days.size).toBe(7)
    })
  })
})

describe("ClickCollector", () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  /** A MemoryClickSink that also remembers the size of each batch written. */
  const recordingSink = () => {
    const sink = new MemoryClickSink()
    const batches: Array<number> = []
    let flushes = 0
    const wrapped: ClickSink = {
      write: async (clicks) => {
        batches.push(clicks.length)
        await sink.write(clicks)
      },
      flush: async () => {
        flushes++
      },
      close: async () => {}
    }
    return { sink, wrapped, batches, flushes: () => flushes }
  }

  it("flush() derives every pending click into the sink, bots dropped, audiences counted", async () => {
    const sink = new MemoryClickSink()
    const collector = new ClickCollector(sink, mmdb, SECRET, 60_000)
    collector.add(raw({ userAgent: UA.chromeWindows }))
    collector.add(raw({ userAgent: UA.googlebot }))
    collector.add(raw({ userAgent: UA.chatgptUser }))
    collector.add(raw({ userAgent: UA.curl }))
    collector.add(raw({ userAgent: UA.safariIphone, ip: "81.2.69.160" }))
    expect(sink.clicks).toHaveLength(0)
    await collector.flush()
    expect(sink.clicks.map((c) => [c.audience, c.country, c.device])).toEqual([
      ["people", "US", "desktop"],
      ["agent", "US", "other"],
      ["people", "GB", "mobile"]
    ])
    expect(sink.counts).toEqual({ people: 2, agent: 1 })
  })

  it("hands over a full batch at once, the rest on flush", async () => {
    const { sink, wrapped, batches, flushes } = recordingSink()
    const collector = new ClickCollector(wrapped, mmdb, SECRET, 60_000, 4)
    for (let i = 0; i < 10; i++) collector.add(raw({ slug: `s${i}` }))
    await sleep(10)
    expect(batches).toEqual([4, 4])
    expect(sink.clicks).toHaveLength(8)
    await collector.flush()
    expect(batches).toEqual([4, 4, 2])
    expect(flushes()).toBe(1)
    expect(sink.clicks.map((c) => c.slug)).toEqual(Array.from({ length: 10 }, (_, i) => `s${i}`))
  })

  it("hands over a partial batch after intervalMs without a flush", async () => {
    const sink = new MemoryClickSink()
    const collector = new ClickCollector(sink, mmdb, SECRET, 20, 1000)
    collector.add(raw())
    collector.add(raw({ userAgent: UA.safariIphone }))
    expect(sink.clicks).toHaveLength(0)
    await vi.waitFor(() => expect(sink.clicks).toHaveLength(2), { timeout: 2000, interval: 10 })
    await collector.flush()
  })

  it("flush with nothing pending writes nothing and still flushes the sink", async () => {
    const { wrapped, batches, flushes } = recordingSink()
    const collector = new ClickCollector(wrapped, mmdb, SECRET)
    await collector.flush()
    expect(batches).toEqual([])
    expect(flushes()).toBe(1)
  })

  it("hands batches over in order without waiting for the previous one's acknowledgement", async () => {
    const order: Array<string> = []
    let unacknowledged = 0
    let mostAtOnce = 0
    const sink: ClickSink = {
      write: async (clicks: ReadonlyArray<ClickRecord>) => {
        // Order is the order of the calls: a sink takes the batch when called (as the spool does).
        order.push(clicks.map((c) => c.slug).join(","))
        mostAtOnce = Math.max(mostAtOnce, ++unacknowledged)
        await sleep(5)
        unacknowledged--
      },
      flush: async () => {},
      close: async () => {}
    }
    const collector = new ClickCollector(sink, mmdb, SECRET, 60_000, 2)
    for (const slug of ["a", "b", "c", "d", "e"]) collector.add(raw({ slug }))
    await collector.flush()
    expect(order).toEqual(["a,b", "c,d", "e"])
    expect(mostAtOnce).toBeGreaterThan(1)
    expect(unacknowledged).toBe(0)
  })

  it("a refused write is counted dropped and logged once per episode; later batches still arrive", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {})
    const sink = new MemoryClickSink()
    // Each batch's fate, in order: refused while the spool's buffer is full, taken again after.
    const script = ["refuse", "refuse", "take", "refuse", "take"]
    const scripted: ClickSink = {
      write: async (clicks) => {
        if (script.shift() === "refuse") throw new Error("click spool buffer is full")
        await sink.write(clicks)
      },
      flush: async () => {},
      close: async () => {}
    }
    // Episodes end as soon as a batch is taken (no quiet time asked for).
    const collector = new ClickCollector(scripted, mmdb, SECRET, 60_000, 256, 0)
    const batches: ReadonlyArray<ReadonlyArray<Partial<RawClick>>> = [
      [{ slug: "a" }, { slug: "b" }],
      [{ slug: "c" }, { userAgent: UA.googlebot }],
      [{ slug: "kept-1" }],
      [{ slug: "d" }, { slug: "e" }, { slug: "f" }],
      [{ slug: "kept-2" }]
    ]
    for (const batch of batches) {
      for (const fields of batch) collector.add(raw(fields))
      await collector.flush()
    }
    // Bots are never written, so never dropped; every other refused click is.
    expect(collector.dropped).toBe(6)
    expect(collector.counts).toEqual({ people: 8, agent: 0, bot: 1 })
    expect(sink.clicks.map((c) => c.slug)).toEqual(["kept-1", "kept-2"])
    const lines = error.mock.calls.map(([message]) => String(message))
    expect(lines.filter((line) => line.startsWith("clicks dropped: click spool buffer is full"))).toHaveLength(2)
    expect(lines.filter((line) => line.startsWith("clicks are being written again: 3 dropped"))).toHaveLength(2)
  })

  it("a buffer that drains while clicks keep coming (taken, refused, taken…) is one episode, ended after a quiet second", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] })
    try {
      const error = vi.spyOn(console, "error").mockImplementation(() => {})
      const script = ["refuse", "take", "refuse", "take", "refuse", "take", "take"]
      const scripted: ClickSink = {
        write: async () => {
          if (script.shift() === "refuse") throw new Error("click spool buffer is full")
        },
        flush: async () => {},
        close: async () => {}
      }
      const collector = new ClickCollector(scripted, mmdb, SECRET, 60_000, 256, 1_000)
      const lines = () => error.mock.calls.map(([message]) => String(message))
      for (let turn = 0; turn < 6; turn++) {
        collector.add(raw({ slug: `s${turn}` }))
        await collector.flush()
        await vi.advanceTimersByTimeAsync(200)
      }
      expect(lines().filter((line) => line.startsWith("clicks dropped"))).toHaveLength(1)
      expect(lines().filter((line) => line.startsWith("clicks are being written again"))).toHaveLength(0)
      // A second with nothing refused after the last batch was taken ends the episode.
      await vi.advanceTimersByTimeAsync(1_000)
      expect(lines().filter((line) => line.startsWith("clicks are being written again: 3 dropped"))).toHaveLength(1)
      expect(collector.dropped).toBe(3)
    } finally {
      vi.useRealTimers()
    }
  })

  it("stopping after the sink took clicks again says the episode ended, once", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {})
    const script = ["refuse", "take"]
    const scripted: ClickSink = {
      write: async () => {
        if (script.shift() === "refuse") throw new Error("click spool buffer is full")
      },
      flush: async () => {},
      close: async () => {}
    }
    const collector = new ClickCollector(scripted, mmdb, SECRET, 60_000, 256, 60_000)
    collector.add(raw({ slug: "a" }))
    await collector.flush()
    collector.add(raw({ slug: "b" }))
    await collector.close()
    const lines = error.mock.calls.map(([message]) => String(message))
    expect(lines.filter((line) => line.startsWith("clicks are being written again: 1 dropped"))).toHaveLength(1)
  })

  it("close() hands over what is collected, closes the sink, and counts what the closing sink refused", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {})
    const waiting: Array<() => void> = []
    let closed = false
    const sink: ClickSink = {
      // Nothing is acknowledged until close() gives up on it.
      write: () => new Promise<void>((_resolve, reject) => waiting.push(() => reject(new Error("click spool closed")))),
      flush: async () => {},
      close: async () => {
        closed = true
        for (const give of waiting.splice(0)) give()
      }
    }
    const collector = new ClickCollector(sink, mmdb, SECRET, 60_000, 2)
    for (const slug of ["a", "b", "c"]) collector.add(raw({ slug }))
    await collector.close()
    expect(closed).toBe(true)
    expect(collector.dropped).toBe(3)
  })
})
