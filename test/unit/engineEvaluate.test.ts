import { xxh32 } from "@node-rs/xxhash"
import { linkRecord } from "../support/linkRecord.ts"
import { describe, expect, it } from "vitest"
import type { LinkRecord } from "../../shared/links/linkRecord.ts"
import { compileLink } from "../../engine/links/compile.ts"
import { type Decision, evaluateLink, pickVariant, type Visit } from "../../engine/rules/evaluate.ts"
import type { Platform } from "../../engine/visitors/device.ts"

/**
 * docs/architecture.md#the-evaluation-order, steps 3 to 8, on compiled links
 * with every fact of the visit injected (the clock too) and every lazy fact's calls counted.
 */

const NOW = Date.parse("2030-06-15T12:00:00.000Z")
const iso = (ms: number) => new Date(ms).toISOString()
const HOUR = 3_600_000

const URL0 = "https://example.com/landing"
const GEO_US = "https://us.example.com/"
const GEO_DE = "https://de.example.com/"
const DEV_IOS = "https://apps.apple.com/app/id1"
const DEV_ANDROID = "https://play.google.com/store/apps/details?id=x"
const DEV_DESKTOP = "https://example.com/desktop"
const VAR_B = "https://example.com/b"
const VAR_C = "https://example.com/c"
const LINK_EXPIRED = "https://example.com/link-expired"
const DOMAIN_EXPIRED = "https://example.com/domain-expired"

const record = (fields: Partial<LinkRecord> = {}): LinkRecord => linkRecord({ url: URL0, ...fields })

const link = (fields: Partial<LinkRecord> = {}) => compileLink(record(fields))

interface Facts {
  readonly now?: number
  readonly country?: string | null
  readonly platform?: Platform
  readonly inApp?: boolean
  readonly visitorKey?: string
  readonly query?: string
  readonly crawler?: boolean
  readonly unlocked?: boolean
}

type Fact = "country" | "platform" | "inAndroidInAppBrowser" | "visitorKey" | "previewCrawler" | "unlocked"
const FACTS: ReadonlyArray<Fact> = ["country", "platform", "inAndroidInAppBrowser", "visitorKey", "previewCrawler", "unlocked"]

/** A visit whose lazy facts count how often they are asked. */
const visitOf = (facts: Facts = {}) => {
  const calls: Record<Fact, number> = { country: 0, platform: 0, inAndroidInAppBrowser: 0, visitorKey: 0, previewCrawler: 0, unlocked: 0 }
  const counted = <T>(name: Fact, value: T) => () => {
    calls[name]++
    return value
  }
  const visit: Visit = {
    now: facts.now ?? NOW,
    country: counted("country", facts.country ?? null),
    platform: counted("platform", facts.platform ?? "desktop"),
    inAndroidInAppBrowser: counted("inAndroidInAppBrowser", facts.inApp ?? false),
    visitorKey: counted("visitorKey", facts.visitorKey ?? "203.0.113.9\nMozilla/5.0"),
    query: facts.query ?? "",
    previewCrawler: counted("previewCrawler", facts.crawler ?? false),
    unlocked: counted("unlocked", facts.unlocked ?? false)
  }
  return { visit, calls }
}

const evaluate = (fields: Partial<LinkRecord>, facts: Facts = {}, domainExpiredUrl: string | null = null): Decision =>
  evaluateLink(link(fields), visitOf(facts).visit, domainExpiredUrl)

const redirectTo = (location: string, extra: Partial<{ status: number; destination: string; variant: number | null }> = {}): Decision => ({
  kind: "redirect",
  status: extra.status ?? 302,
  location,
  destination: extra.destination ?? location,
  variant: extra.variant === undefined ? null : extra.variant
})

const abTest = (endsAt: string | null, weights: ReadonlyArray<number> = [50, 50]) => ({
  variants: [URL0, VAR_B, VAR_C, "https://example.com/d", "https://example.com/e"].slice(0, weights.length).map((url, i) => ({ url, weight: weights[i] })),
  endsAt
})

const geoRules = [{ country: "US", url: GEO_US }, { country: "de", url: GEO_DE }]
const deviceRules = [
  { device: "ios" as const, url: DEV_IOS },
  { device: "android" as const, url: DEV_ANDROID },
  { device: "desktop" as const, url: DEV_DESKTOP }
]

describe("step 3: expiry", () => {
  const rows: ReadonlyArray<readonly [name: string, fields: Partial<LinkRecord>, now: number, domainExpired: string | null, expected: Decision]> = [
    ["before expiresAt: redirects", { expiresAt: iso(NOW + 1) }, NOW, DOMAIN_EXPIRED, redirectTo(URL0)],
    ["an hour before expiresAt: redirects", { expiresAt: iso(NOW + HOUR), expiredUrl: LINK_EXPIRED }, NOW, null, redirectTo(URL0)],
    ["exactly at expiresAt: expired", { expiresAt: iso(NOW), expiredUrl: LINK_EXPIRED }, NOW, null, { kind: "expired-redirect", location: LINK_EXPIRED }],
    ["after expiresAt, link expiredUrl wins over the domain's", { expiresAt: iso(NOW - 1), expiredUrl: LINK_EXPIRED }, NOW, DOMAIN_EXPIRED, { kind: "expired-redirect", location: LINK_EXPIRED }],
    ["after expiresAt, no link expiredUrl: domain expiredUrl", { expiresAt: iso(NOW - HOUR) }, NOW, DOMAIN_EXPIRED, { kind: "expired-redirect", location: DOMAIN_EXPIRED }],
    ["after expiresAt, neither: expired page", { expiresAt: iso(NOW - HOUR) }, NOW, null, { kind: "expired-page" }],
    ["no expiresAt: never expires", { expiresAt: null, expiredUrl: LINK_EXPIRED }, Date.parse("2999-01-01T00:00:00Z"), DOMAIN_EXPIRED, redirectTo(URL0)],
    ["expiredUrl alone does not expire a link", { expiredUrl: LINK_EXPIRED }, NOW, null, redirectTo(URL0)]
  ]
  it.each(rows)("%s", (_name, fields, now, domainExpired, expected) => {
    expect(evaluate(fields, { now }, domainExpired)).toEqual(expected)
  })

  it("the same link flips from redirect to expired as the injected clock passes expiresAt", () => {
    const compiled = link({ expiresAt: iso(NOW), expiredUrl: LINK_EXPIRED })
    const at = (now: number) => evaluateLink(compiled, visitOf({ now }).visit, null).kind
    expect([at(NOW - 1000), at(NOW - 1), at(NOW), at(NOW + 1), at(NOW + 1000)]).toEqual([
      "redirect", "redirect", "expired-redirect", "expired-redirect", "expired-redirect"
    ])
  })

  it("an expired link asks the visit for nothing (before password, preview and every rule)", () => {
    const { visit, calls } = visitOf({ crawler: true, unlocked: false, country: "US", platform: "ios", inApp: true })
    const decision = evaluateLink(
      link({
        expiresAt: iso(NOW - 1),
        passwordHash: "$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA",
        title: "T",
        geoRules,
        deviceRules,
        abTest: abTest(null),
        passQuery: true,
        openInApp: true,
        openInBrowser: true
      }),
      visit,
      DOMAIN_EXPIRED
    )
    expect(decision).toEqual({ kind: "expired-redirect", location: DOMAIN_EXPIRED })
    for (const fact of FACTS) expect(calls[fact], fact).toBe(0)
  })
})

describe("step 4: password", () => {
  const HASH = "$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA"
  const rows: ReadonlyArray<readonly [name: string, fields: Partial<LinkRecord>, facts: Facts, domainExpired: string | null, expected: Decision["kind"]]> = [
    ["locked link without unlock cookie: password page", { passwordHash: HASH }, { unlocked: false }, null, "password-page"],
    ["unlocked: redirects", { passwordHash: HASH }, { unlocked: true }, null, "redirect"],
    ["expiry wins over password (expired page)", { passwordHash: HASH, expiresAt: iso(NOW) }, { unlocked: false }, null, "expired-page"],
    ["expiry wins over password (fallback)", { passwordHash: HASH, expiresAt: iso(NOW - 1) }, { unlocked: true }, DOMAIN_EXPIRED, "expired-redirect"],
    ["password wins over preview", { passwordHash: HASH, title: "Secret launch" }, { unlocked: false, crawler: true }, null, "password-page"],
    ["password wins over geo, device and A/B", { passwordHash: HASH, geoRules, deviceRules, abTest: abTest(null) }, { unlocked: false, country: "US", platform: "ios" }, null, "password-page"],
    ["password wins over openInApp", { passwordHash: HASH, url: "https://www.youtube.com/watch?v=1", openInApp: true }, { unlocked: false, platform: "ios" }, null, "password-page"]
  ]
  it.each(rows)("%s", (_name, fields, facts, domainExpired, expected) => {
    expect(evaluate(fields, facts, domainExpired).kind).toBe(expected)
  })

  it("the unlock check runs only for links with a password", () => {
    const plain = visitOf({ unlocked: false })
    expect(evaluateLink(link(), plain.visit, null).kind).toBe("redirect")
    expect(plain.calls.unlocked).toBe(0)
    const locked = visitOf({ unlocked: false, country: "US", crawler: true })
    expect(evaluateLink(link({ passwordHash: HASH, geoRules, title: "x" }), locked.visit, null).kind).toBe("password-page")
    expect(locked.calls).toEqual({ country: 0, platform: 0, inAndroidInAppBrowser: 0, visitorKey: 0, previewCrawler: 0, unlocked: 1 })
  })
})

describe("step 5: social-preview crawlers", () => {
  const rows: ReadonlyArray<readonly [name: string, fields: Partial<LinkRecord>, crawler: boolean, expected: Decision["kind"]]> = [
    ["title only, crawler: preview page", { title: "Launch" }, true, "preview-page"],
    ["description only, crawler: preview page", { description: "All about it" }, true, "preview-page"],
    ["ogImageUrl only, crawler: preview page", { ogImageUrl: "https://cdn.example.com/card.png" }, true, "preview-page"],
    ["all three, crawler: preview page", { title: "T", description: "D", ogImageUrl: "https://cdn.example.com/i.png" }, true, "preview-page"],
    ["no Open Graph fields, crawler: redirect", {}, true, "redirect"],
    ["Open Graph fields, a person: redirect", { title: "Launch", description: "D" }, false, "redirect"],
    ["preview beats geo and device rules", { title: "T", geoRules, deviceRules }, true, "preview-page"],
    ["preview beats openInApp", { title: "T", url: "https://www.youtube.com/watch?v=1", openInApp: true }, true, "preview-page"]
  ]
  it.each(rows)("%s", (_name, fields, crawler, expected) => {
    expect(evaluate(fields, { crawler, country: "US", platform: "ios" }).kind).toBe(expected)
  })

  it("the crawler test runs only for links with Open Graph fields", () => {
    const plain = visitOf({ crawler: true })
    evaluateLink(link(), plain.visit, null)
    expect(plain.calls.previewCrawler).toBe(0)
    const og = visitOf({ crawler: false })
    evaluateLink(link({ ogImageUrl: "https://cdn.example.com/i.png" }), og.visit, null)
    expect(og.calls.previewCrawler).toBe(1)
  })

  it("a preview page asks for no destination facts", () => {
    const { visit, calls } = visitOf({ crawler: true })
    expect(evaluateLink(link({ title: "T", geoRules, deviceRules, abTest: abTest(null), openInApp: true, openInBrowser: true }), visit, null).kind).toBe("preview-page")
    expect(calls).toEqual({ country: 0, platform: 0, inAndroidInAppBrowser: 0, visitorKey: 0, previewCrawler: 1, unlocked: 0 })
  })
})

describe("step 6: destination (geo, then device, then A/B, then url)", () => {
  const everything = { geoRules, deviceRules, abTest: abTest(null, [10, 10, 80]) }
  const rows: ReadonlyArray<readonly [name: string, fields: Partial<LinkRecord>, facts: Facts, destination: string | "variant"]> = [
    ["geo: visitor country matches", { geoRules }, { country: "US" }, GEO_US],
    ["geo: rule country given in lower case still matches", { geoRules }, { country: "DE" }, GEO_DE],
    ["geo: no rule for the country", { geoRules }, { country: "FR" }, URL0],
    ["geo: unknown country", { geoRules }, { country: null }, URL0],
    ["device: ios", { deviceRules }, { platform: "ios" }, DEV_IOS],
    ["device: android", { deviceRules }, { platform: "android" }, DEV_ANDROID],
    ["device: desktop", { deviceRules }, { platform: "desktop" }, DEV_DESKTOP],
    ["device: other matches no rule", { deviceRules }, { platform: "other" }, URL0],
    ["device: no rule for this platform", { deviceRules: [{ device: "ios", url: DEV_IOS }] }, { platform: "android" }, URL0],
    ["geo beats device", { geoRules, deviceRules }, { country: "US", platform: "ios" }, GEO_US],
    ["geo beats device and A/B", everything, { country: "DE", platform: "android" }, GEO_DE],
    ["no geo match: device beats A/B", everything, { country: "FR", platform: "android" }, DEV_ANDROID],
    ["unknown country: device beats A/B", everything, { country: null, platform: "desktop" }, DEV_DESKTOP],
    ["no geo, no device match: A/B variant", everything, { country: "FR", platform: "other" }, "variant"],
    ["plain link: url", {}, { country: "US", platform: "ios" }, URL0]
  ]
  it.each(rows)("%s", (_name, fields, facts, destination) => {
    const decision = evaluate(fields, facts)
    expect(decision.kind).toBe("redirect")
    if (decision.kind !== "redirect") return
    if (destination === "variant") {
      expect(decision.variant).not.toBeNull()
      expect(decision.location).toBe([URL0, VAR_B, VAR_C][decision.variant!])
    } else {
      expect(decision).toEqual(redirectTo(destination))
    }
  })

  describe("A/B test runs while endsAt is null or in the future", () => {
    const rows: ReadonlyArray<readonly [name: string, endsAt: string | null, running: boolean]> = [
      ["endsAt null", null, true],
      ["endsAt in an hour", iso(NOW + HOUR), true],
      ["endsAt one ms ahead", iso(NOW + 1), true],
      ["exactly at endsAt: stopped", iso(NOW), false],
      ["endsAt passed", iso(NOW - HOUR), false]
    ]
    it.each(rows)("%s", (_name, endsAt, running) => {
      const compiled = link({ abTest: abTest(endsAt, [10, 90]) })
      const seen = new Set<number | null>()
      for (let i = 0; i < 200; i++) {
        const { visit, calls } = visitOf({ visitorKey: `visitor-${i}` })
        const decision = evaluateLink(compiled, visit, null)
        if (decision.kind !== "redirect") throw new Error(decision.kind)
        seen.add(decision.variant)
        expect(decision.location).toBe(decision.variant === null ? URL0 : [URL0, VAR_B][decision.variant])
        expect(calls.visitorKey).toBe(running ? 1 : 0)
      }
      expect([...seen].sort()).toEqual(running ? [0, 1] : [null])
    })
  })

  describe("A/B distribution follows the weights over 10,000 visitors", () => {
    const rows: ReadonlyArray<ReadonlyArray<number>> = [
      [10, 30, 60],
      [50, 50],
      [10, 90],
      [20, 20, 20, 20, 20],
      [100, 10, 40]
    ]
    it.each(rows.map((w) => [w.join("/"), w] as const))("weights %s", (_name, weights) => {
      const compiled = link({ abTest: abTest(null, weights) })
      const counts = new Array<number>(weights.length).fill(0)
      const N = 10_000
      for (let i = 0; i < N; i++) {
        const decision = evaluateLink(compiled, visitOf({ visitorKey: `198.51.${i >> 8}.${i & 255}\nMozilla/5.0 visitor ${i}` }).visit, null)
        if (decision.kind !== "redirect" || decision.variant === null) throw new Error("no variant")
        counts[decision.variant]++
        expect(decision.destination).toBe(compiled.rules!.ab!.urls[decision.variant])
      }
      const total = weights.reduce((a, b) => a + b, 0)
      weights.forEach((weight, i) => {
        expect(Math.abs(counts[i] / N - weight / total), `variant ${i}: ${counts[i]} of ${N}`).toBeLessThanOrEqual(0.03)
      })
    })
  })

  it("A/B is sticky: the same visitor gets the same variant, also after the link is recompiled", () => {
    const fields = { abTest: abTest(null, [34, 33, 33]) }
    const first = link(fields)
    const again = link(fields)
    for (let i = 0; i < 300; i++) {
      const key = `visitor-${i}`
      const variant = pickVariant(first.rules!.ab!, key)
      for (let repeat = 0; repeat < 3; repeat++) {
        const decision = evaluateLink(first, visitOf({ visitorKey: key, now: NOW + repeat * HOUR }).visit, null)
        expect(decision.kind === "redirect" && decision.variant).toBe(variant)
      }
      expect(pickVariant(again.rules!.ab!, key)).toBe(variant)
    }
  })

  it("every bucket of xxh32(visitor, link seed) mod total falls in its variant's slice of the cumulative weights", () => {
    const compiled = link({ abTest: abTest(null, [10, 30, 60]) })
    const expected = (bucket: number) => (bucket < 10 ? 0 : bucket < 40 ? 1 : 2)
    const seen = new Set<number>()
    for (let i = 0; seen.size < 100 && i < 100_000; i++) {
      const key = `k${i}`
      const bucket = xxh32(key, compiled.rules!.ab!.seed) % 100
      seen.add(bucket)
      expect(pickVariant(compiled.rules!.ab!, key), `bucket ${bucket}`).toBe(expected(bucket))
    }
    expect(seen.size).toBe(100)
  })

  it("variant 0 is the link's own url and carries the link's utm like any destination", () => {
    const compiled = link({ abTest: abTest(null, [50, 50]), utm: { source: "news" } })
    const found = new Map<number, string>()
    for (let i = 0; i < 100; i++) {
      const d = evaluateLink(compiled, visitOf({ visitorKey: `k${i}` }).visit, null)
      if (d.kind === "redirect" && d.variant !== null) found.set(d.variant, d.location)
    }
    expect(found.get(0)).toBe("https://example.com/landing?utm_source=news")
    expect(found.get(1)).toBe("https://example.com/b?utm_source=news")
  })

  it("geo and device destinations report no variant", () => {
    const everythingLink = link(everything)
    for (const facts of [{ country: "US" }, { platform: "ios" as const }]) {
      const d = evaluateLink(everythingLink, visitOf(facts).visit, null)
      expect(d.kind === "redirect" && d.variant).toBeNull()
    }
  })
})

describe("lazily evaluated facts are asked only when a rule needs them (hot path)", () => {
  const HASH = "$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA"
  const rows: ReadonlyArray<readonly [name: string, fields: Partial<LinkRecord>, facts: Facts, asked: ReadonlyArray<Fact>]> = [
    ["plain link", {}, {}, []],
    ["plain link with utm, passQuery and redirectType", { utm: { source: "x" }, passQuery: true, redirectType: 301 }, { query: "a=1" }, []],
    ["expiring link not yet expired", { expiresAt: iso(NOW + HOUR), expiredUrl: LINK_EXPIRED }, {}, []],
    ["geo rules only", { geoRules }, { country: "FR" }, ["country"]],
    ["geo match short-circuits device and A/B", { geoRules, deviceRules, abTest: abTest(null) }, { country: "US" }, ["country"]],
    ["device rules only", { deviceRules }, { platform: "other" }, ["platform"]],
    ["device match short-circuits A/B", { deviceRules, abTest: abTest(null) }, { platform: "ios" }, ["platform"]],
    ["A/B only", { abTest: abTest(null) }, {}, ["visitorKey"]],
    ["ended A/B", { abTest: abTest(iso(NOW - 1)) }, {}, []],
    ["no match anywhere: every destination fact once", { geoRules, deviceRules, abTest: abTest(null) }, { country: null, platform: "other" }, ["country", "platform", "visitorKey"]],
    ["password, unlocked", { passwordHash: HASH }, { unlocked: true }, ["unlocked"]],
    ["Open Graph fields", { title: "T" }, { crawler: false }, ["previewCrawler"]],
    ["openInApp", { openInApp: true, url: "https://www.youtube.com/watch?v=1" }, { platform: "desktop" }, ["platform"]],
    ["openInBrowser", { openInBrowser: true }, { inApp: false }, ["inAndroidInAppBrowser"]]
  ]
  it.each(rows)("%s", (_name, fields, facts, asked) => {
    const { visit, calls } = visitOf(facts)
    expect(evaluateLink(link(fields), visit, null).kind).toBe("redirect")
    for (const fact of FACTS) expect(calls[fact], fact).toBe(asked.includes(fact) ? 1 : 0)
  })

  it("a device rule and openInApp ask the platform at most twice, never more", () => {
    const { visit, calls } = visitOf({ platform: "other" })
    evaluateLink(link({ deviceRules, openInApp: true }), visit, null)
    expect(calls.platform).toBeLessThanOrEqual(2)
    expect(calls.country).toBe(0)
  })
})

describe("step 7: query merging", () => {
  const rows: ReadonlyArray<readonly [name: string, url: string, utm: Record<string, string> | null, passQuery: boolean, query: string, expected: string]> = [
    ["destination unchanged without utm or passQuery", "https://shop.example/p?color=red#top", null, false, "", "https://shop.example/p?color=red#top"],
    ["utm appended after the destination's own params", "https://shop.example/p?color=red", { source: "news", medium: "email" }, false, "", "https://shop.example/p?color=red&utm_source=news&utm_medium=email"],
    ["utm in a stable order whatever the object's key order", "https://shop.example/p", { ref: "r", content: "co", term: "t", campaign: "ca", medium: "m", source: "s" }, false, "", "https://shop.example/p?utm_source=s&utm_medium=m&utm_campaign=ca&utm_term=t&utm_content=co&ref=r"],
    ["utm_source replaces the destination's utm_source in place", "https://shop.example/p?utm_source=old&x=1", { source: "new" }, false, "", "https://shop.example/p?utm_source=new&x=1"],
    ["an empty utm value sets nothing", "https://shop.example/p?utm_medium=keep", { source: "", medium: "" }, false, "", "https://shop.example/p?utm_medium=keep"],
    ["passQuery false ignores the short link's query", "https://shop.example/p?color=red", null, false, "color=blue&q=1", "https://shop.example/p?color=red"],
    ["passQuery false ignores the query, utm still applied", "https://shop.example/p", { campaign: "c" }, false, "utm_campaign=visitor", "https://shop.example/p?utm_campaign=c"],
    ["passQuery appends new params", "https://shop.example/p?color=red", null, true, "q=shoes&page=2", "https://shop.example/p?color=red&q=shoes&page=2"],
    ["passQuery overrides a destination param in place", "https://shop.example/p?color=red&size=m", null, true, "color=blue", "https://shop.example/p?color=blue&size=m"],
    ["passQuery over utm: the visitor's utm_source wins, in place", "https://shop.example/p?color=red", { source: "news", medium: "email" }, true, "utm_source=visitor&q=1", "https://shop.example/p?color=red&utm_source=visitor&utm_medium=email&q=1"],
    ["passQuery with an empty query changes nothing", "https://shop.example/p?color=red", { source: "news" }, true, "", "https://shop.example/p?color=red&utm_source=news"],
    ["fragment preserved after utm", "https://docs.example/guide#section-2", { campaign: "c" }, false, "", "https://docs.example/guide?utm_campaign=c#section-2"],
    ["fragment preserved after utm and passQuery", "https://docs.example/guide?v=1#section-2", { campaign: "c" }, true, "q=1", "https://docs.example/guide?v=1&utm_campaign=c&q=1#section-2"],
    ["fragment preserved with passQuery only", "https://docs.example/guide#s", null, true, "q=1", "https://docs.example/guide?q=1#s"],
    ["passQuery values are re-encoded safely", "https://shop.example/p", null, true, "q=a%20b%26c", "https://shop.example/p?q=a%20b%26c"],
    ["the destination's own query is kept as written", "https://app.example/?/route/1&q=a%20b", { source: "x" }, false, "", "https://app.example/?/route/1&q=a%20b&utm_source=x"],
    ["passQuery keeps repeated keys", "https://shop.example/p", null, true, "tag=a&tag=b", "https://shop.example/p?tag=a&tag=b"],
    ["passQuery passes %ff as sent", "https://shop.example/p", null, true, "q=%ff&r=%FF%fe", "https://shop.example/p?q=%ff&r=%FF%fe"],
    ["passQuery: ?@evil.com stays in the query", "https://shop.example", null, true, "@evil.com", "https://shop.example/?@evil.com"],
    ["passQuery: a raw # cannot become the fragment", "https://shop.example/p#top", null, true, "a=1#x", "https://shop.example/p?a=1%23x#top"],
    ["passQuery: the visitor's encoded utm_source replaces the link's", "https://shop.example/p", { source: "news" }, true, "utm%5Fsource=me", "https://shop.example/p?utm%5Fsource=me"],
    ["non-ASCII destination percent-encoded, IDN host in punycode", "https://bücher.example/straße?q=ä#é", null, false, "", "https://xn--bcher-kva.example/stra%C3%9Fe?q=%C3%A4#%C3%A9"],
    ["non-ASCII destination with utm and a non-ASCII visitor query", "https://example.com/ü", { source: "x" }, true, "w=é", "https://example.com/%C3%BC?utm_source=x&w=%C3%A9"]
  ]
  it.each(rows)("%s", (_name, url, utm, passQuery, query, expected) => {
    const decision = evaluate({ url, utm, passQuery }, { query })
    expect(decision).toEqual(redirectTo(expected))
  })

  it("utm and passQuery apply to geo, device and A/B destinations too", () => {
    const fields = { utm: { source: "news" }, passQuery: true, geoRules, deviceRules, abTest: abTest(null, [10, 90]) }
    expect(evaluate(fields, { country: "US", query: "q=1" })).toEqual(redirectTo("https://us.example.com/?utm_source=news&q=1"))
    expect(evaluate(fields, { platform: "android", query: "q=1" })).toEqual(
      redirectTo("https://play.google.com/store/apps/details?id=x&utm_source=news&q=1")
    )
    const ab = evaluate(fields, { platform: "other", query: "q=1", visitorKey: "v" })
    expect(ab.kind === "redirect" && ab.location).toMatch(/^https:\/\/example\.com\/(landing|b)\?utm_source=news&q=1$/)
  })
})

describe("step 8: openInApp and openInBrowser", () => {
  const intentFor = (web: string, pkg: string | null) => {
    const u = new URL(web)
    return `intent://${u.host}${u.pathname}${u.search}#Intent;scheme=https;` +
      `${pkg === null ? "action=android.intent.action.VIEW;" : `package=${pkg};`}S.browser_fallback_url=${encodeURIComponent(web)};end`
  }
  const YT = "https://www.youtube.com/watch?v=dQw4w9WgXcQ"
  const rows: ReadonlyArray<readonly [name: string, url: string, platform: Platform, expected: Decision]> = [
    ["android YouTube: intent:// with package and fallback", YT, "android", { kind: "redirect", status: 302, location: intentFor(YT, "com.google.android.youtube"), destination: YT, variant: null }],
    ["android youtu.be", "https://youtu.be/abc", "android", { kind: "redirect", status: 302, location: intentFor("https://youtu.be/abc", "com.google.android.youtube"), destination: "https://youtu.be/abc", variant: null }],
    ["android Twitter", "https://twitter.com/jack/status/20", "android", { kind: "redirect", status: 302, location: intentFor("https://twitter.com/jack/status/20", "com.twitter.android"), destination: "https://twitter.com/jack/status/20", variant: null }],
    ["android Spotify", "https://open.spotify.com/track/abc123", "android", { kind: "redirect", status: 302, location: intentFor("https://open.spotify.com/track/abc123", "com.spotify.music"), destination: "https://open.spotify.com/track/abc123", variant: null }],
    ["android LinkedIn (Android-only app rule)", "https://www.linkedin.com/in/someone", "android", { kind: "redirect", status: 302, location: intentFor("https://www.linkedin.com/in/someone", "com.linkedin.android"), destination: "https://www.linkedin.com/in/someone", variant: null }],
    ["ios YouTube: app page", YT, "ios", { kind: "app", appUrl: "youtube://www.youtube.com/watch?v=dQw4w9WgXcQ", location: YT, destination: YT, variant: null }],
    ["ios Twitter status", "https://twitter.com/jack/status/20", "ios", { kind: "app", appUrl: "twitter://status?id=20", location: "https://twitter.com/jack/status/20", destination: "https://twitter.com/jack/status/20", variant: null }],
    ["ios x.com profile", "https://x.com/jack", "ios", { kind: "app", appUrl: "twitter://user?screen_name=jack", location: "https://x.com/jack", destination: "https://x.com/jack", variant: null }],
    ["ios Spotify track", "https://open.spotify.com/track/abc123", "ios", { kind: "app", appUrl: "spotify:track:abc123", location: "https://open.spotify.com/track/abc123", destination: "https://open.spotify.com/track/abc123", variant: null }],
    ["ios Instagram profile", "https://www.instagram.com/nasa", "ios", { kind: "app", appUrl: "instagram://user?username=nasa", location: "https://www.instagram.com/nasa", destination: "https://www.instagram.com/nasa", variant: null }],
    ["ios Twitter page without an app URL: plain redirect", "https://twitter.com/jack/likes", "ios", redirectTo("https://twitter.com/jack/likes")],
    ["ios LinkedIn (no iOS scheme): plain redirect", "https://www.linkedin.com/in/someone", "ios", redirectTo("https://www.linkedin.com/in/someone")],
    ["desktop YouTube: plain redirect", YT, "desktop", redirectTo(YT)],
    ["other platform YouTube: plain redirect", YT, "other", redirectTo(YT)],
    ["android unknown host: plain redirect", "https://example.org/page", "android", redirectTo("https://example.org/page")],
    ["ios unknown host: plain redirect", "https://example.org/page", "ios", redirectTo("https://example.org/page")],
    ["look-alike host is not the app", "https://notyoutube.com/watch?v=1", "android", redirectTo("https://notyoutube.com/watch?v=1")]
  ]
  it.each(rows)("openInApp, %s", (_name, url, platform, expected) => {
    expect(evaluate({ url, openInApp: true }, { platform })).toEqual(expected)
  })

  it.each(["android", "ios"] as const)("openInApp false: %s YouTube gets the plain redirect", (platform) => {
    expect(evaluate({ url: YT, openInApp: false }, { platform })).toEqual(redirectTo(YT))
  })

  it("openInApp hands off the merged destination (utm and passQuery applied)", () => {
    const merged = "https://www.youtube.com/watch?v=dQw4w9WgXcQ&utm_source=news&t=42"
    expect(evaluate({ url: YT, openInApp: true, utm: { source: "news" }, passQuery: true }, { platform: "android", query: "t=42" })).toEqual({
      kind: "redirect", status: 302, location: intentFor(merged, "com.google.android.youtube"), destination: merged, variant: null
    })
    expect(evaluate({ url: YT, openInApp: true, utm: { source: "news" }, passQuery: true }, { platform: "ios", query: "t=42" })).toEqual({
      kind: "app", appUrl: "youtube://www.youtube.com/watch?v=dQw4w9WgXcQ&utm_source=news&t=42", location: merged, destination: merged, variant: null
    })
  })

  const browserRows: ReadonlyArray<readonly [name: string, fields: Partial<LinkRecord>, facts: Facts, expected: Decision]> = [
    ["Android in-app browser: intent:// without package", { openInBrowser: true }, { platform: "android", inApp: true }, { kind: "redirect", status: 302, location: intentFor(URL0, null), destination: URL0, variant: null }],
    ["not in an in-app browser: plain redirect", { openInBrowser: true }, { platform: "android", inApp: false }, redirectTo(URL0)],
    ["openInBrowser off: plain redirect even in an in-app browser", { openInBrowser: false }, { platform: "android", inApp: true }, redirectTo(URL0)],
    ["openInApp wins for a known app in an Android in-app browser", { url: YT, openInApp: true, openInBrowser: true }, { platform: "android", inApp: true }, { kind: "redirect", status: 302, location: intentFor(YT, "com.google.android.youtube"), destination: YT, variant: null }],
    ["unknown host with both: browser hand-off", { openInApp: true, openInBrowser: true }, { platform: "android", inApp: true }, { kind: "redirect", status: 302, location: intentFor(URL0, null), destination: URL0, variant: null }]
  ]
  it.each(browserRows)("openInBrowser, %s", (_name, fields, facts, expected) => {
    expect(evaluate(fields, facts)).toEqual(expected)
  })

  it("the intent hand-offs escape the fallback URL", () => {
    const web = "https://example.org/p?a=1&b=two%20words"
    const d = evaluate({ url: web, openInBrowser: true }, { inApp: true })
    if (d.kind !== "redirect") throw new Error(d.kind)
    const fallback = /S\.browser_fallback_url=([^;]*);end$/.exec(d.location)![1]
    expect(decodeURIComponent(fallback)).toBe(web)
    expect(fallback).not.toMatch(/[;&?=#]/)
  })
})

describe("step 9: redirectType carried in the status", () => {
  it.each([301, 302, 307, 308] as const)("%i", (redirectType) => {
    expect(evaluate({ redirectType })).toEqual(redirectTo(URL0, { status: redirectType }))
    const d = evaluate({ redirectType, openInBrowser: true }, { inApp: true })
    expect(d.kind === "redirect" && d.status).toBe(redirectType)
    const app = evaluate({ redirectType, url: "https://youtu.be/x", openInApp: true }, { platform: "android" })
    expect(app.kind === "redirect" && app.status).toBe(redirectType)
  })
})

describe("the whole order on one link", () => {
  const HASH = "$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA"
  const everything: Partial<LinkRecord> = {
    expiresAt: iso(NOW + HOUR),
    expiredUrl: LINK_EXPIRED,
    passwordHash: HASH,
    title: "T",
    geoRules,
    deviceRules,
    abTest: abTest(null, [50, 50]),
    redirectType: 307
  }
  const rows: ReadonlyArray<readonly [name: string, facts: Facts, expected: string]> = [
    ["expired", { now: NOW + HOUR, unlocked: true, crawler: true, country: "US" }, "expired-redirect " + LINK_EXPIRED],
    ["locked", { unlocked: false, crawler: true, country: "US" }, "password-page"],
    ["unlocked crawler", { unlocked: true, crawler: true, country: "US" }, "preview-page"],
    ["unlocked person in the US", { unlocked: true, country: "US", platform: "ios" }, "redirect 307 " + GEO_US],
    ["unlocked person in France on iOS", { unlocked: true, country: "FR", platform: "ios" }, "redirect 307 " + DEV_IOS],
    ["unlocked person in France on a TV", { unlocked: true, country: "FR", platform: "other", visitorKey: "v" }, "redirect 307 variant"]
  ]
  it.each(rows)("%s", (_name, facts, expected) => {
    const d = evaluate(everything, facts)
    const summary = d.kind === "expired-redirect" ? `${d.kind} ${d.location}` : d.kind === "redirect"
      ? `${d.kind} ${d.status} ${d.variant === null ? d.location : "variant"}`
      : d.kind
    expect(summary).toBe(expected)
  })
})
