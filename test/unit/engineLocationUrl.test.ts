import { describe, expect, it } from "vitest"
import { compileDomain, compileLink } from "../../engine/links/compile.ts"
import { toLocationUrl } from "../../engine/links/locationUrl.ts"
import { linkRecord } from "../support/linkRecord.ts"

/** engine/links/locationUrl.ts: destinations go out in Location as printable ASCII, as a browser would parse them. */

describe("toLocationUrl", () => {
  it.each([
    ["ASCII URL unchanged", "https://example.com/a/b?x=1&y=%ff#top", "https://example.com/a/b?x=1&y=%ff#top"],
    ["query as written: ?/route, escapes, + and @", "https://app.example/?/route/1&q=a%20b+c&m=@x", "https://app.example/?/route/1&q=a%20b+c&m=@x"],
    ["non-ASCII path", "https://example.com/straße", "https://example.com/stra%C3%9Fe"],
    ["non-ASCII query", "https://example.com/?q=ä ö", "https://example.com/?q=%C3%A4%20%C3%B6"],
    ["non-ASCII fragment", "https://example.com/#é", "https://example.com/#%C3%A9"],
    ["IDN host to punycode", "https://bücher.example/", "https://xn--bcher-kva.example/"],
    ["emoji", "https://example.com/😀", "https://example.com/%F0%9F%98%80"],
    ["space and quotes in the path", 'https://example.com/a b"c', "https://example.com/a%20b%22c"],
    ["trailing spaces dropped", "https://example.com/x  ", "https://example.com/x"],
    ["host case folded, empty path is /", "https://Example.COM", "https://example.com/"]
  ])("%s", (_name, url, expected) => {
    expect(toLocationUrl(url)).toBe(expected)
    expect(toLocationUrl(url)).toMatch(/^[\x21-\x7e]+$/)
  })

  it("a string the parser refuses is returned unchanged", () => {
    expect(toLocationUrl("not a url")).toBe("not a url")
  })

  it("an ASCII URL keeps the very same string (one copy per compiled link)", () => {
    const url = ["https://example.com/", "same"].join("")
    expect(toLocationUrl(url)).toBe(url)
  })
})

describe("compiled links and domains carry encoded destinations", () => {
  it("every destination of a link, its expiredUrl and with utm", () => {
    const link = compileLink(linkRecord({
      url: "https://example.com/ü",
      utm: { source: "é" },
      geoRules: [{ country: "DE", url: "https://bücher.example/x" }],
      deviceRules: [{ device: "ios", url: "https://example.com/ï" }],
      abTest: { variants: [{ url: "https://example.com/ü", weight: 1 }, { url: "https://example.com/ö", weight: 1 }], endsAt: null },
      expiresAt: "2099-01-01T00:00:00Z",
      expiredUrl: "https://example.com/ä"
    }))
    expect(link.url).toBe("https://example.com/%C3%BC?utm_source=%C3%A9")
    expect(link.rules!.geo!.get("DE")).toBe("https://xn--bcher-kva.example/x?utm_source=%C3%A9")
    expect(link.rules!.device!.ios).toBe("https://example.com/%C3%AF?utm_source=%C3%A9")
    expect(link.rules!.ab!.urls).toEqual(["https://example.com/%C3%BC?utm_source=%C3%A9", "https://example.com/%C3%B6?utm_source=%C3%A9"])
    expect(link.extras!.expiredUrl).toBe("https://example.com/%C3%A4")
  })

  it("a domain's root, not-found and expired URLs", () => {
    const domain = compileDomain({
      id: "dom_1",
      workspaceId: "ws_1",
      host: "go.example.com",
      status: "verified",
      rootRedirectUrl: "https://example.com/é",
      notFoundUrl: "https://bücher.example/",
      expiredUrl: null
    })
    expect([domain.rootRedirectUrl, domain.notFoundUrl, domain.expiredUrl]).toEqual(["https://example.com/%C3%A9", "https://xn--bcher-kva.example/", null])
  })
})
