import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startDnsServer } from "../support/dnsServer.ts"
import { apiClient, type ControlHandle, eventually, removeDir, roomInThisMinute, startControl, tempDir, visit } from "../support/processes.ts"
import { sleep } from "../support/time.ts"

/**
 * The redirect engine over real HTTP (docs/architecture.md#the-evaluation-order,
 * "Who clicked", "Domains"): one embedded `npm start` (PGlite, in-process bus), links made through
 * the API, visits sent to the engine with the Host header of the short link's domain.
 *
 * Clicks go to the in-memory sink whose counts the loopback status endpoint reports; they are
 * batched (~50 ms), so counts are read once they have settled.
 */

const HOST = "my-workspace.localhost"
const CUSTOM_HOST = "go.redirects-test.com"
const CNAME_TARGET = "cname.ricochet.test"

const UA = {
  desktop: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  iphone:
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
  android: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36",
  instagramAndroid:
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/120.0.0.0 Mobile Safari/537.36 Instagram 312.0.0.0 Android",
  chatgptUser: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot",
  curl: "curl/8.5.0",
  googlebot: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
  gptbot: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.1; +https://openai.com/gptbot",
  twitterbot: "Twitterbot/1.0",
  facebook: "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)"
} as const

type Answer = Awaited<ReturnType<typeof visit>>
/** The engine's click counters: people and agent clicks recorded; `bot`, where reported, bot visits seen and dropped. */
type Clicks = { people: number; agent: number; bot?: number }
const counted = (clicks: Clicks) => ({ people: clicks.people, agent: clicks.agent })
const header = (answer: Answer, name: string): string => {
  const value = answer.headers[name]
  return Array.isArray(value) ? value.join(", ") : value ?? ""
}

/** Every redirect and page of the engine must not be stored by browsers or proxies. */
const expectNoStore = (answer: Answer) => expect(header(answer, "cache-control")).toBe("private, no-store")

/**
 * Until `check` holds on several new connections at once: each HTTP worker of the engine hears
 * of a change on its own, within milliseconds of the others, and a connection reaches one of them.
 */
const onEveryWorker = (check: () => Promise<boolean>, timeoutMs: number) =>
  eventually(async () => (await Promise.all(Array.from({ length: 6 }, check))).every(Boolean), timeoutMs)

const expectHtml = (answer: Answer, status: number) => {
  expect(answer.status, answer.body.slice(0, 300)).toBe(status)
  expect(header(answer, "content-type")).toMatch(/^text\/html/)
  expect(answer.body).toMatch(/^<!doctype html>/i)
  expect(answer.location).toBeNull()
  expectNoStore(answer)
}

const expectRedirect = (answer: Answer, status: number, location: string) => {
  expect({ status: answer.status, location: answer.location }, answer.body.slice(0, 300)).toEqual({ status, location })
  expectNoStore(answer)
}

describe("redirect engine over HTTP (embedded npm start)", () => {
  let dns: Awaited<ReturnType<typeof startDnsServer>>
  let dir: string
  let ctl: ControlHandle
  let api: ReturnType<typeof apiClient>
  let engine: string
  let subdomainId: string

  const go = (path: string, init: Parameters<typeof visit>[3] = {}, host = HOST) => visit(engine, host, path, init)
  const as = (userAgent: string, path: string, headers: Record<string, string> = {}) =>
    go(path, { headers: { "user-agent": userAgent, ...headers } })
  const postForm = (path: string, form: Record<string, string>, headers: Record<string, string> = {}) => {
    const body = new URLSearchParams(form).toString()
    return go(path, {
      method: "POST",
      body,
      headers: { "content-type": "application/x-www-form-urlencoded", "content-length": String(Buffer.byteLength(body)), ...headers }
    })
  }

  const createLink = async (input: Record<string, unknown>) => {
    const res = await api.post("/v1/links", input)
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    const link = res.body as { id: string; slug: string; url: string; domain: string }
    // The engine learns of new slugs over the bus (its slug filter answers "no such link" until
    // then): wait for the event, a few milliseconds. Links on unverified domains stay 404.
    await eventually(async () => (await visit(engine, link.domain, `/${link.slug}`, { method: "HEAD" })).status !== 404, 1_000).catch(() => {})
    return link
  }
  const patchLink = async (id: string, input: Record<string, unknown>) => {
    const res = await api.patch(`/v1/links/${id}`, input)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body
  }
  const patchDomain = async (id: string, input: Record<string, unknown>) => {
    const res = await api.patch(`/v1/domains/${id}`, input)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body
  }

  const status = async (): Promise<{ clicks: Clicks; queries: number }> => {
    const res = await fetch(`${engine}/.well-known/ricochet/status`)
    expect(res.status).toBe(200)
    return (await res.json()) as { clicks: Clicks; queries: number }
  }
  /** The click counts once no batch is still on its way (two reads 200 ms apart agree). */
  const settledClicks = async (): Promise<Clicks> => {
    let last = (await status()).clicks
    for (;;) {
      await sleep(200)
      const now = (await status()).clicks
      if (now.people === last.people && now.agent === last.agent && now.bot === last.bot) return now
      last = now
    }
  }

  beforeAll(async () => {
    dns = await startDnsServer()
    dir = await tempDir("ricochet-redirects-")
    ctl = await startControl({
      RICOCHET_DATA_DIR: dir,
      DATABASE_URL: undefined,
      NATS_URL: undefined,
      RICOCHET_GEO_HEADER: "cf-ipcountry",
      RICOCHET_LINK_SCHEME: "http",
      RICOCHET_DNS_SERVERS: dns.server,
      RICOCHET_DOMAIN_RECHECK_SECONDS: "1",
      RICOCHET_CNAME_TARGET: CNAME_TARGET
    })
    expect(ctl.firstKey).toMatch(/^rico_/)
    api = apiClient(ctl.baseUrl, ctl.firstKey)
    engine = `http://127.0.0.1:${ctl.env.RICOCHET_ENGINE_PORT}`
    const domains = await api.get("/v1/domains")
    expect(domains.status).toBe(200)
    const sub = domains.body.data.find((d: any) => d.host === HOST)
    expect(sub).toMatchObject({ kind: "subdomain", status: "verified" })
    subdomainId = sub.id
  })

  afterAll(async () => {
    await ctl?.stop()
    await dns?.close()
    if (dir) await removeDir(dir)
  })

  it("answers 302 by default with Cache-Control: private, no-store, and honours 301, 307 and 308 (still no-store)", async () => {
    const link = await createLink({ url: "https://example.com/basic", slug: "basic" })
    expect(link.domain).toBe(HOST)
    const answer = await go("/basic")
    expectRedirect(answer, 302, "https://example.com/basic")
    // A trailing slash is the same link.
    expectRedirect(await go("/basic/"), 302, "https://example.com/basic")
    // Slugs are case-sensitive.
    expectHtml(await go("/BASIC"), 404)

    for (const redirectType of [301, 307, 308]) {
      const typed = await createLink({ url: `https://example.com/typed-${redirectType}`, slug: `typed-${redirectType}`, redirectType })
      expectRedirect(await go(`/${typed.slug}`), redirectType, `https://example.com/typed-${redirectType}`)
    }
    // An edit reaches the engine over the bus: the status changes on the next visits.
    const patched = await api.get("/v1/links/info?domain=my-workspace.localhost&slug=typed-301")
    await patchLink(patched.body.id, { redirectType: 302 })
    await onEveryWorker(async () => (await go("/typed-301")).status === 302, 2_000)
  })

  it("answers HEAD with the same status and location, an empty body, and does not count it", async () => {
    const link = await createLink({ url: "https://example.com/head", slug: "head", redirectType: 308 })
    const get = await go(`/${link.slug}`)
    expectRedirect(get, 308, "https://example.com/head")
    const before = await settledClicks()
    for (let i = 0; i < 3; i++) {
      const head = await go(`/${link.slug}`, { method: "HEAD" })
      expectRedirect(head, 308, "https://example.com/head")
      expect(head.body).toBe("")
    }
    // HEAD of a page: same status and headers, no body; the first answer comes after a database
    // lookup, the second from the cache (synchronously), both with the page's length.
    for (const path of ["/no-such-slug-head", "/no-such-slug-head", "/", "/"]) {
      const get = await go(path)
      const head = await go(path, { method: "HEAD" })
      expect(head.status).toBe(get.status)
      expect(head.body).toBe("")
      expect(header(head, "content-type")).toBe(header(get, "content-type"))
      expect(header(head, "content-length")).toBe(String(Buffer.byteLength(get.body)))
      expectNoStore(head)
    }
    await sleep(300)
    expect(await settledClicks()).toEqual(before)
    // The sink is live: one GET is counted.
    await go(`/${link.slug}`)
    await eventually(async () => (await status()).clicks.people === before.people + 1, 15_000)
  })

  it("other methods get 405 with Allow; an oversized password form gets 413; the engine keeps answering", async () => {
    for (const method of ["PUT", "DELETE", "PATCH"]) {
      const answer = await go("/basic", { method })
      expect(answer.status).toBe(405)
      expect(header(answer, "allow")).toBe("GET, HEAD, POST")
    }
    await createLink({ url: "https://example.com/big-form", slug: "pw-big", password: "pw" })
    const huge = `password=${"a".repeat(10_000)}`
    const tooLarge = await go("/pw-big", {
      method: "POST",
      body: huge,
      headers: { "content-type": "application/x-www-form-urlencoded", "content-length": String(huge.length) }
    })
    expect(tooLarge.status).toBe(413)
    expect(tooLarge.headers["set-cookie"]).toBeUndefined()
    expectRedirect(await go("/basic"), 302, "https://example.com/basic")
  })

  it("unknown host: 404 page; domain root: landing page or rootRedirectUrl; unknown slug: 404 page or notFoundUrl", async () => {
    const unknownHost = await go("/basic", {}, "nobody.example.org")
    expectHtml(unknownHost, 404)
    expect(unknownHost.body).toContain("Link not found")
    expectHtml(await go("/", {}, "nobody.example.org"), 404)

    const landing = await go("/")
    expectHtml(landing, 200)
    expect(landing.body).toContain(HOST)

    const missing = await go("/does-not-exist")
    expectHtml(missing, 404)
    // Not a slug at all (characters outside [A-Za-z0-9_-]): the same 404 page.
    expectHtml(await go("/a.b/c"), 404)

    try {
      const updated = await patchDomain(subdomainId, { rootRedirectUrl: "https://example.com/home", notFoundUrl: "https://example.com/missing" })
      expect(updated).toMatchObject({ rootRedirectUrl: "https://example.com/home", notFoundUrl: "https://example.com/missing" })
      await onEveryWorker(async () => (await go("/")).location === "https://example.com/home", 2_000)
      expectRedirect(await go("/"), 302, "https://example.com/home")
      await onEveryWorker(async () => (await go("/does-not-exist")).location === "https://example.com/missing", 2_000)
      expectRedirect(await go("/does-not-exist"), 302, "https://example.com/missing")
      expectRedirect(await go("/a.b/c"), 302, "https://example.com/missing")
      // Existing links are unaffected.
      expectRedirect(await go("/basic"), 302, "https://example.com/basic")
      // Another host still gets nothing.
      expectHtml(await go("/", {}, "nobody.example.org"), 404)
    } finally {
      await patchDomain(subdomainId, { rootRedirectUrl: null, notFoundUrl: null })
    }
    await onEveryWorker(async () => (await go("/")).status === 200 && (await go("/does-not-exist")).status === 404, 2_000)
  })

  it("expiry: the link's expiredUrl, else the domain's expiredUrl, else a 410 page; not yet expired redirects", async () => {
    const past = new Date(Date.now() - 60_000).toISOString()
    const future = new Date(Date.now() + 3_600_000).toISOString()
    const withOwn = await createLink({ url: "https://example.com/live-1", slug: "exp-own", expiresAt: past, expiredUrl: "https://example.com/link-expired" })
    const without = await createLink({ url: "https://example.com/live-2", slug: "exp-none", expiresAt: past })
    await createLink({ url: "https://example.com/live-3", slug: "exp-later", expiresAt: future, expiredUrl: "https://example.com/link-expired" })

    expectRedirect(await go("/exp-own"), 302, "https://example.com/link-expired")
    const gone = await go("/exp-none")
    expectHtml(gone, 410)
    expect(gone.body).toMatch(/expired/i)
    expectRedirect(await go("/exp-later"), 302, "https://example.com/live-3")

    try {
      await patchDomain(subdomainId, { expiredUrl: "https://example.com/domain-expired" })
      await onEveryWorker(async () => (await go("/exp-none")).location === "https://example.com/domain-expired", 2_000)
      expectRedirect(await go("/exp-none"), 302, "https://example.com/domain-expired")
      // The link's own expiredUrl wins over the domain's.
      expectRedirect(await go("/exp-own"), 302, "https://example.com/link-expired")
    } finally {
      await patchDomain(subdomainId, { expiredUrl: null })
    }
    await onEveryWorker(async () => (await go("/exp-none")).status === 410, 2_000)

    // Moving expiresAt into the future brings the link back; clearing it too.
    await patchLink(without.id, { expiresAt: future })
    await onEveryWorker(async () => (await go("/exp-none")).location === "https://example.com/live-2", 2_000)
    await patchLink(withOwn.id, { expiresAt: null })
    await onEveryWorker(async () => (await go("/exp-own")).location === "https://example.com/live-1", 2_000)
  })

  describe("password-protected links", () => {
    it("GET shows a form that holds neither the password nor its hash; wrong passwords get 403, then 429 with Retry-After", async () => {
      const password = "correct horse battery staple"
      const link = await createLink({ url: "https://example.com/secret-limited", slug: "pw-limited", password })
      const stored = await api.get(`/v1/links/${link.id}`)
      expect(stored.body.hasPassword).toBe(true)
      expect(JSON.stringify(stored.body)).not.toContain(password)

      const form = await go("/pw-limited?ref=x")
      expectHtml(form, 200)
      expect(form.body).toMatch(/<form method="post" action="\/pw-limited\?ref=x">/)
      expect(form.body).toContain('type="password"')
      expect(form.body).toContain('name="password"')
      expect(form.body).not.toContain(password)
      expect(form.body).not.toContain("argon2")
      expect(form.body).not.toContain("example.com/secret-limited")
      // HEAD of the form: same status, no body.
      const head = await go("/pw-limited", { method: "HEAD" })
      expect(head.status).toBe(200)
      expect(head.body).toBe("")

      // The limiter counts in fixed one-minute windows: do not start the six attempts right
      // before a window ends, or the count would restart in the middle of them.
      await roomInThisMinute(10)

      for (let attempt = 1; attempt <= 5; attempt++) {
        const wrong = await postForm("/pw-limited", { password: `wrong-${attempt}` })
        expectHtml(wrong, 403)
        expect(wrong.body).toContain("not right")
        expect(wrong.headers["set-cookie"]).toBeUndefined()
        expect(wrong.body).not.toContain(password)
      }
      const limited = await postForm("/pw-limited", { password: "wrong-6" })
      expectHtml(limited, 429)
      expect(Number(header(limited, "retry-after"))).toBeGreaterThan(0)
      expect(limited.headers["set-cookie"]).toBeUndefined()
      // While limited, even the right password is refused.
      const rightButLimited = await postForm("/pw-limited", { password })
      expect(rightButLimited.status).toBe(429)
      expect(rightButLimited.headers["set-cookie"]).toBeUndefined()
      // An empty password is a wrong one, not a server error.
      const other = await createLink({ url: "https://example.com/secret-empty", slug: "pw-empty", password: "x" })
      expect((await postForm(`/${other.slug}`, { password: "" })).status).toBe(403)
      expect((await postForm(`/${other.slug}`, {})).status).toBe(403)
    })

    it("the right password: 303 with an HttpOnly cookie scoped to /{slug}; the cookie opens that link only, until the password changes", async () => {
      const link = await createLink({ url: "https://example.com/secret-open", slug: "pw-open", password: "open-sesame" })
      const sibling = await createLink({ url: "https://example.com/secret-sibling", slug: "pw-sibling", password: "open-sesame" })

      const unlocked = await postForm("/pw-open", { password: "open-sesame" })
      expect(unlocked.status, unlocked.body).toBe(303)
      expect(unlocked.location).toBe("/pw-open")
      expectNoStore(unlocked)
      const setCookie = unlocked.headers["set-cookie"]
      expect(setCookie).toHaveLength(1)
      const cookieLine = setCookie![0]
      const attributes = cookieLine.split(";").map((s) => s.trim())
      expect(attributes).toContain("Path=/pw-open")
      expect(attributes).toContain("HttpOnly")
      expect(attributes.some((a) => /^Secure$/i.test(a))).toBe(false) // RICOCHET_LINK_SCHEME=http
      const cookie = attributes[0]
      expect(cookie).toMatch(/^[^=]+=.+$/)
      expect(cookie).not.toContain("open-sesame")

      // With the cookie: the redirect.
      expectRedirect(await go("/pw-open", { headers: { cookie } }), 302, "https://example.com/secret-open")
      expectRedirect(await go("/pw-open", { headers: { cookie: `other=1; ${cookie}; more=2` } }), 302, "https://example.com/secret-open")
      // Without it: the form again.
      expectHtml(await go("/pw-open"), 200)
      // A tampered value does not unlock.
      expectHtml(await go("/pw-open", { headers: { cookie: `${cookie.slice(0, -2)}xx` } }), 200)

      // The cookie opens no other link, under its own name or renamed to the other link's.
      expectHtml(await go("/pw-sibling", { headers: { cookie } }), 200)
      const value = cookie.slice(cookie.indexOf("=") + 1)
      const renamed = `${cookie.slice(0, cookie.indexOf("=")).replace(link.id, sibling.id)}=${value}`
      expect(renamed).not.toBe(cookie)
      expectHtml(await go("/pw-sibling", { headers: { cookie: renamed } }), 200)

      // A new password invalidates every cookie issued before.
      await patchLink(link.id, { password: "new-password" })
      await onEveryWorker(async () => (await go("/pw-open", { headers: { cookie } })).status === 200, 2_000)
      expectHtml(await go("/pw-open", { headers: { cookie } }), 200)
      expect((await postForm("/pw-open", { password: "open-sesame" })).status).toBe(403)
      const again = await postForm("/pw-open", { password: "new-password" })
      expect(again.status).toBe(303)
      const fresh = again.headers["set-cookie"]![0].split(";")[0]
      expectRedirect(await go("/pw-open", { headers: { cookie: fresh } }), 302, "https://example.com/secret-open")

      // Removing the password opens the link to everyone.
      await patchLink(link.id, { password: null })
      await onEveryWorker(async () => (await go("/pw-open")).status === 302, 2_000)
      // Posting to a link without a password is a 404, not an unlock.
      expect((await postForm("/pw-open", { password: "anything" })).status).toBe(404)
    })
  })

  it("social preview crawlers get Open Graph tags (HTML-escaped) when the link has any; others get the redirect; previews are not counted", async () => {
    const title = `Launch <script>alert("x")</script> & more`
    const description = `It's "fast" <b>bold</b>`
    const link = await createLink({
      url: "https://example.com/preview",
      slug: "preview",
      title,
      description,
      ogImageUrl: "https://img.example.com/card.png?a=1&b=2"
    })
    await createLink({ url: "https://example.com/plain", slug: "no-preview" })
    const before = await settledClicks()

    for (const ua of [UA.twitterbot, UA.facebook]) {
      const page = await as(ua, `/${link.slug}`)
      expectHtml(page, 200)
      expect(page.body).toContain('<meta property="og:title" content="Launch &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more">')
      expect(page.body).toContain('<meta property="og:description" content="It&#39;s &quot;fast&quot; &lt;b&gt;bold&lt;/b&gt;">')
      expect(page.body).toContain('<meta property="og:image" content="https://img.example.com/card.png?a=1&amp;b=2">')
      expect(page.body).not.toContain("<script>")
      expect(page.body).not.toContain("<b>")
    }
    // People still get the redirect.
    expectRedirect(await go(`/${link.slug}`), 302, "https://example.com/preview")
    // Without title, description or image: crawlers get the redirect too.
    expectRedirect(await as(UA.twitterbot, "/no-preview"), 302, "https://example.com/plain")
    expectRedirect(await as(UA.facebook, "/no-preview"), 302, "https://example.com/plain")
    // Search crawlers are not preview crawlers: they get the redirect.
    expectRedirect(await as(UA.googlebot, `/${link.slug}`), 302, "https://example.com/preview")

    await eventually(async () => (await status()).clicks.people === before.people + 1, 15_000)
    await sleep(300)
    const after = await settledClicks()
    expect(counted(after)).toEqual({ people: before.people + 1, agent: before.agent })
    // The three redirects to crawlers were bot visits, dropped; the two previews never reach the collector.
    if (before.bot !== undefined) expect(after.bot).toBe(before.bot + 3)
  })

  it("geo rules follow the cf-ipcountry header, device rules the user agent, and geo beats device", async () => {
    await createLink({
      url: "https://example.com/geo-default",
      slug: "geo",
      geoRules: [{ country: "de", url: "https://example.de/" }, { country: "JP", url: "https://example.jp/" }]
    })
    expectRedirect(await go("/geo", { headers: { "cf-ipcountry": "DE" } }), 302, "https://example.de/")
    expectRedirect(await go("/geo", { headers: { "cf-ipcountry": "de" } }), 302, "https://example.de/")
    expectRedirect(await go("/geo", { headers: { "cf-ipcountry": "JP" } }), 302, "https://example.jp/")
    expectRedirect(await go("/geo", { headers: { "cf-ipcountry": "FR" } }), 302, "https://example.com/geo-default")
    expectRedirect(await go("/geo"), 302, "https://example.com/geo-default")
    // Cloudflare's "unknown" and garbage values are no country.
    expectRedirect(await go("/geo", { headers: { "cf-ipcountry": "XX1" } }), 302, "https://example.com/geo-default")

    await createLink({
      url: "https://example.com/device-default",
      slug: "device",
      deviceRules: [
        { device: "ios", url: "https://apps.apple.com/app/id1" },
        { device: "android", url: "https://play.google.com/store/apps/details?id=x" },
        { device: "desktop", url: "https://example.com/desktop" }
      ]
    })
    expectRedirect(await as(UA.iphone, "/device"), 302, "https://apps.apple.com/app/id1")
    expectRedirect(await as(UA.android, "/device"), 302, "https://play.google.com/store/apps/details?id=x")
    expectRedirect(await as(UA.desktop, "/device"), 302, "https://example.com/desktop")
    // A client whose platform is unknown falls through to the url.
    expectRedirect(await as(UA.curl, "/device"), 302, "https://example.com/device-default")

    await createLink({
      url: "https://example.com/both-default",
      slug: "geo-device",
      geoRules: [{ country: "DE", url: "https://example.de/both" }],
      deviceRules: [{ device: "ios", url: "https://apps.apple.com/app/id2" }]
    })
    expectRedirect(await as(UA.iphone, "/geo-device", { "cf-ipcountry": "DE" }), 302, "https://example.de/both")
    expectRedirect(await as(UA.iphone, "/geo-device", { "cf-ipcountry": "FR" }), 302, "https://apps.apple.com/app/id2")
    expectRedirect(await as(UA.android, "/geo-device", { "cf-ipcountry": "FR" }), 302, "https://example.com/both-default")
    expectRedirect(await as(UA.desktop, "/geo-device", { "cf-ipcountry": "DE" }), 302, "https://example.de/both")
  })

  it("A/B test: 300 visitors see both variants roughly by weight, each visitor always the same one; an ended test sends all to url", async () => {
    const a = "https://example.com/variant-a"
    const b = "https://example.com/variant-b"
    const link = await createLink({
      url: a,
      slug: "ab",
      abTest: { variants: [{ url: a, weight: 70 }, { url: b, weight: 30 }], endsAt: null }
    })
    const visitors = Array.from({ length: 300 }, (_, i) => `${UA.desktop} visitor/${i}`)
    const seen = new Map<string, string>()
    for (let i = 0; i < visitors.length; i += 25) {
      const answers = await Promise.all(visitors.slice(i, i + 25).map((ua) => as(ua, "/ab")))
      answers.forEach((answer, j) => {
        expect(answer.status).toBe(302)
        seen.set(visitors[i + j], answer.location!)
      })
    }
    const counts = { a: 0, b: 0 }
    for (const location of seen.values()) {
      if (location === a) counts.a++
      else if (location === b) counts.b++
      else throw new Error(`unexpected location ${location}`)
    }
    expect(counts.a + counts.b).toBe(300)
    // 70/30 over 300: ±15 points is more than five standard deviations.
    expect(counts.a / 300).toBeGreaterThan(0.55)
    expect(counts.a / 300).toBeLessThan(0.85)
    expect(counts.b).toBeGreaterThan(0)

    // Sticky: the same visitor gets the same variant every time.
    for (const ua of visitors.slice(0, 20)) {
      for (let k = 0; k < 3; k++) expect((await as(ua, "/ab")).location).toBe(seen.get(ua))
    }

    // A test that has ended sends everyone to the link's url.
    await patchLink(link.id, { abTest: { variants: [{ url: a, weight: 70 }, { url: b, weight: 30 }], endsAt: new Date(Date.now() - 1000).toISOString() } })
    const someB = visitors.filter((ua) => seen.get(ua) === b).slice(0, 10)
    await eventually(async () => (await as(someB[0], "/ab")).location === a, 10_000)
    for (const ua of someB) expect((await as(ua, "/ab")).location).toBe(a)
  })

  it("query: the destination's own parameters, then utm over them, then (with passQuery) the short link's query over both", async () => {
    await createLink({
      url: "https://example.com/landing?a=1&utm_source=orig&keep=yes#top",
      slug: "utm-pass",
      utm: { source: "newsletter", medium: "email", campaign: "spring" },
      passQuery: true
    })
    const answer = await go("/utm-pass?utm_medium=override&a=2&extra=x%20y")
    expect(answer.status).toBe(302)
    const location = new URL(answer.location!)
    expect(location.origin + location.pathname).toBe("https://example.com/landing")
    expect(location.hash).toBe("#top")
    expect([...location.searchParams]).toEqual([
      ["a", "2"],
      ["utm_source", "newsletter"],
      ["keep", "yes"],
      ["utm_medium", "override"],
      ["utm_campaign", "spring"],
      ["extra", "x y"]
    ])
    // No query on the short link: the destination with the utm set.
    const plain = new URL((await go("/utm-pass")).location!)
    expect([...plain.searchParams]).toEqual([
      ["a", "1"],
      ["utm_source", "newsletter"],
      ["keep", "yes"],
      ["utm_medium", "email"],
      ["utm_campaign", "spring"]
    ])

    // Without passQuery the short link's query is dropped.
    await createLink({ url: "https://example.com/nopass?a=1", slug: "utm-nopass", utm: { source: "ads" } })
    expectRedirect(await go("/utm-nopass?a=2&b=3"), 302, "https://example.com/nopass?a=1&utm_source=ads")
    // passQuery without utm: the short link's query over the destination's.
    await createLink({ url: "https://example.com/pass?a=1&b=1", slug: "pass-only", passQuery: true })
    expectRedirect(await go("/pass-only?b=2&c=3"), 302, "https://example.com/pass?a=1&b=2&c=3")
    expectRedirect(await go("/pass-only"), 302, "https://example.com/pass?a=1&b=1")
  })

  it("openInApp: iPhone gets the app hand-off page, Android an intent:// redirect, desktop the plain redirect", async () => {
    const url = "https://www.youtube.com/watch?v=dQw4w9WgXcQ"
    await createLink({ url, slug: "yt", openInApp: true })

    const ios = await as(UA.iphone, "/yt")
    expectHtml(ios, 200)
    expect(ios.body).toContain("youtube://www.youtube.com/watch?v=dQw4w9WgXcQ")
    // The page falls back to the web page.
    expect(ios.body).toContain(url)

    const android = await as(UA.android, "/yt")
    expect(android.status).toBe(302)
    expectNoStore(android)
    expect(android.location).toMatch(/^intent:\/\/www\.youtube\.com\/watch\?v=dQw4w9WgXcQ#Intent;/)
    expect(android.location).toContain("scheme=https;")
    expect(android.location).toContain("package=com.google.android.youtube;")
    expect(android.location).toContain(`S.browser_fallback_url=${encodeURIComponent(url)};`)
    expect(android.location).toMatch(/;end$/)

    expectRedirect(await as(UA.desktop, "/yt"), 302, url)

    // A destination no app takes: the plain redirect on phones too.
    await createLink({ url: "https://example.com/no-app", slug: "no-app", openInApp: true })
    expectRedirect(await as(UA.iphone, "/no-app"), 302, "https://example.com/no-app")
    expectRedirect(await as(UA.android, "/no-app"), 302, "https://example.com/no-app")
    // Without openInApp: the plain redirect.
    await createLink({ url, slug: "yt-web" })
    expectRedirect(await as(UA.iphone, "/yt-web"), 302, url)
    expectRedirect(await as(UA.android, "/yt-web"), 302, url)
  })

  it("openInBrowser: an Android in-app browser (Instagram) is handed to the default browser with intent://", async () => {
    const url = "https://example.com/article?id=7"
    await createLink({ url, slug: "escape", openInBrowser: true })
    const inApp = await as(UA.instagramAndroid, "/escape")
    expect(inApp.status).toBe(302)
    expectNoStore(inApp)
    expect(inApp.location).toMatch(/^intent:\/\/example\.com\/article\?id=7#Intent;scheme=https;/)
    expect(inApp.location).toContain(`S.browser_fallback_url=${encodeURIComponent(url)};`)
    expect(inApp.location).not.toContain("package=")
    // Chrome itself, desktop and iPhone: the plain redirect.
    expectRedirect(await as(UA.android, "/escape"), 302, url)
    expectRedirect(await as(UA.desktop, "/escape"), 302, url)
    expectRedirect(await as(UA.iphone, "/escape"), 302, url)
    // Without openInBrowser the in-app browser gets the plain redirect.
    await createLink({ url, slug: "stay" })
    expectRedirect(await as(UA.instagramAndroid, "/stay"), 302, url)
  })

  it("CR/LF in the path or query never turns into an injected header (passQuery on)", async () => {
    await createLink({ url: "https://example.com/safe", slug: "inject", passQuery: true })
    await createLink({ url: "https://example.com/safe-pw", slug: "inject-pw", password: "pw", passQuery: true })
    const payloads = [
      "/inject?x=%0d%0aSet-Cookie:%20evil=1",
      "/inject?%0d%0aSet-Cookie:%20evil=1=2",
      "/inject?x=%0D%0ASet-Cookie:evil=1%0D%0A%0D%0A<html>",
      "/inject?x=%0aLocation:%20https://evil.example/",
      "/inject%0d%0aSet-Cookie:%20evil=1",
      "/%0d%0aSet-Cookie:%20evil=1",
      "/inject/%0d%0aSet-Cookie:%20evil=1"
    ]
    const check = (answer: Answer) => {
      expect(answer.headers["set-cookie"]).toBeUndefined()
      for (const [name, value] of Object.entries(answer.headers)) {
        expect(String(value), name).not.toMatch(/[\r\n]/)
        expect(name).not.toMatch(/evil/i)
      }
      if (answer.location !== null) {
        expect(answer.location.startsWith("https://example.com/safe")).toBe(true)
        // The visitor's query is passed as sent (`%0a` stays `%0a`): whatever it says stays
        // inside the query, it never moves the destination.
        const location = new URL(answer.location)
        expect([location.host, location.pathname]).toEqual(["example.com", "/safe"])
        expect(answer.location).toMatch(/^[\x21-\x7e]+$/)
      }
    }
    for (const path of payloads) {
      const answer = await go(path)
      check(answer)
      expect([302, 404]).toContain(answer.status)
      const head = await go(path, { method: "HEAD" })
      check(head)
    }
    const redirected = await go(payloads[0])
    expect(redirected.status).toBe(302)
    expect(new URL(redirected.location!).searchParams.get("x")).toBe("\r\nSet-Cookie: evil=1")

    // The password form's 303 goes back to the requested URL: still one Set-Cookie, ours.
    const unlocked = await postForm("/inject-pw?x=%0d%0aSet-Cookie:%20evil=1", { password: "pw" })
    expect(unlocked.status).toBe(303)
    expect(unlocked.headers["set-cookie"]).toHaveLength(1)
    expect(unlocked.headers["set-cookie"]![0]).not.toMatch(/evil/)
    expect(unlocked.location).not.toMatch(/[\r\n]/)
    const form = await go("/inject-pw?x=%22%3E%3Cscript%3E")
    expect(form.status).toBe(200)
    expect(form.body).not.toContain('"><script>')
  })

  it("clicks: people and AI agents are counted exactly; bots, HEAD and preview crawlers never", async () => {
    await createLink({ url: "https://example.com/counted", slug: "counted", title: "Counted" })
    const before = await settledClicks()

    for (let i = 0; i < 3; i++) expectRedirect(await as(UA.desktop, "/counted"), 302, "https://example.com/counted")
    expectRedirect(await as(UA.iphone, "/counted"), 302, "https://example.com/counted")
    for (let i = 0; i < 2; i++) expectRedirect(await as(UA.chatgptUser, "/counted"), 302, "https://example.com/counted")
    // Web Bot Auth: a signed agent counts as an agent whatever its user agent.
    expectRedirect(await as(UA.curl, "/counted", { "signature-agent": '"https://chatgpt.com"' }), 302, "https://example.com/counted")

    // Never counted.
    expectRedirect(await as(UA.curl, "/counted"), 302, "https://example.com/counted")
    expectRedirect(await as(UA.googlebot, "/counted"), 302, "https://example.com/counted")
    expectRedirect(await as(UA.gptbot, "/counted"), 302, "https://example.com/counted")
    expectRedirect(await as("", "/counted"), 302, "https://example.com/counted")
    expectRedirect(await go("/counted", { method: "HEAD" }), 302, "https://example.com/counted")
    expectRedirect(await go("/counted", { method: "HEAD", headers: { "user-agent": UA.chatgptUser } }), 302, "https://example.com/counted")
    expectHtml(await as(UA.twitterbot, "/counted"), 200)
    expectHtml(await as(UA.facebook, "/counted"), 200)
    // Not a link: nothing to count.
    expectHtml(await as(UA.desktop, "/not-a-link"), 404)

    const expected = { people: before.people + 4, agent: before.agent + 3 }
    await eventually(async () => {
      const { clicks } = await status()
      return clicks.people >= expected.people && clicks.agent >= expected.agent
    }, 3_000)
    await sleep(300)
    const after = await settledClicks()
    expect(counted(after)).toEqual(expected)
    // curl, Googlebot, GPTBot and the empty user agent were seen as bots and dropped; HEAD and previews not even seen.
    if (before.bot !== undefined) expect(after.bot).toBe(before.bot + 4)
  })

  it("only verified domains redirect: a pending custom domain answers 404 until its DNS records are published and verified", async () => {
    const created = await api.post("/v1/domains", { host: CUSTOM_HOST })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const domain = created.body
    expect(domain).toMatchObject({ host: CUSTOM_HOST, kind: "custom", status: "pending" })
    const txt = domain.dnsRecords.find((r: any) => r.type === "TXT")
    const cname = domain.dnsRecords.find((r: any) => r.type === "CNAME")
    expect(cname).toEqual({ type: "CNAME", name: CUSTOM_HOST, value: CNAME_TARGET })

    const link = await createLink({ url: "https://example.com/custom", slug: "custom", domain: CUSTOM_HOST })
    expect(link.domain).toBe(CUSTOM_HOST)
    // The same slug on the workspace subdomain is another link.
    await createLink({ url: "https://example.com/sub-custom", slug: "custom" })

    // Pending: nothing on this host is served, not the link, not the root.
    expectHtml(await go("/custom", {}, CUSTOM_HOST), 404)
    expectHtml(await go("/", {}, CUSTOM_HOST), 404)
    expectHtml(await go("/custom", {}, `${CUSTOM_HOST}:8080`), 404)
    expectRedirect(await go("/custom"), 302, "https://example.com/sub-custom")
    const notYet = await api.post(`/v1/domains/${domain.id}/verify`)
    expect(notYet.status).toBe(200)
    expect(notYet.body.verified).toBe(false)
    expectHtml(await go("/custom", {}, CUSTOM_HOST), 404)

    dns.set(txt.name, { TXT: [txt.value] })
    dns.set(CUSTOM_HOST, { CNAME: CNAME_TARGET })
    const verified = await api.post(`/v1/domains/${domain.id}/verify`)
    expect(verified.status).toBe(200)
    expect(verified.body.verified, verified.body.reason).toBe(true)
    expect(verified.body.domain.status).toBe("verified")

    await onEveryWorker(async () => (await go("/custom", {}, CUSTOM_HOST)).location === "https://example.com/custom", 3_000)
    expectRedirect(await go("/custom", {}, CUSTOM_HOST), 302, "https://example.com/custom")
    // Host names are case-insensitive and may carry a port.
    expectRedirect(await go("/custom", {}, `GO.Redirects-Test.com:${ctl.env.RICOCHET_ENGINE_PORT}`), 302, "https://example.com/custom")
    expectHtml(await go("/", {}, CUSTOM_HOST), 200)
    expectHtml(await go("/other", {}, CUSTOM_HOST), 404)
    expectRedirect(await go("/custom"), 302, "https://example.com/sub-custom")
  })
})
