import { runInNewContext } from "node:vm"
import { describe, expect, it } from "vitest"
import { createHash } from "node:crypto"
import {
  appHandOffPage,
  badRequestPage,
  errorPage,
  escapeHtml,
  expiredPage,
  landingPage,
  methodNotAllowedPage,
  notFoundPage,
  openGraphPage,
  passwordPage,
  payloadTooLargePage
} from "../../engine/pages/html.ts"
import { HANDOFF_CSP, HANDOFF_PAGE_HEADERS, PAGE_CSP, PAGE_HEADERS } from "../../engine/pages/securityHeaders.ts"

/** The engine's pages: every interpolated value escaped, nothing secret, no script break-out. */

const unescapeHtml = (text: string) =>
  text.replace(/&(lt|gt|quot|#39|amp);/g, (_m, e: string) => ({ lt: "<", gt: ">", quot: '"', "#39": "'", amp: "&" })[e]!)

const count = (haystack: string, needle: string) => haystack.split(needle).length - 1

const PAYLOADS: ReadonlyArray<string> = [
  `"><script>alert(1)</script>`,
  `'><img src=x onerror=alert(1)>`,
  `</title><script>alert(1)</script>`,
  `" onmouseover="alert(1)`,
  `' autofocus onfocus='alert(1)`,
  `&lt;script&gt;`,
  `</script><script>alert(1)</script>`
]

describe("escapeHtml", () => {
  it.each([
    [`<script>"'&`, "&lt;script&gt;&quot;&#39;&amp;"],
    ["plain text", "plain text"],
    ["", ""],
    ["a&amp;b", "a&amp;amp;b"],
    ["<<>>", "&lt;&lt;&gt;&gt;"],
    ["ünïcödé ✓", "ünïcödé ✓"]
  ])("%j → %j", (input, expected) => {
    expect(escapeHtml(input)).toBe(expected)
    expect(unescapeHtml(escapeHtml(input))).toBe(input)
  })
})

/** Each HTML page builder with one injected value. */
const PAGES: ReadonlyArray<readonly [name: string, build: (value: string) => string]> = [
  ["landingPage host", (v) => landingPage(v)],
  ["badRequestPage reason", (v) => badRequestPage(v)],
  ["passwordPage action (ask)", (v) => passwordPage(v, "ask")],
  ["passwordPage action (wrong)", (v) => passwordPage(v, "wrong")],
  ["passwordPage action (limited)", (v) => passwordPage(v, "limited")],
  ["openGraphPage title", (v) => openGraphPage({ title: v, description: null, image: null, url: "https://example.com/" })],
  ["openGraphPage description", (v) => openGraphPage({ title: "T", description: v, image: null, url: "https://example.com/" })],
  ["openGraphPage image", (v) => openGraphPage({ title: "T", description: "D", image: v, url: "https://example.com/" })],
  ["openGraphPage url (title null)", (v) => openGraphPage({ title: null, description: null, image: null, url: v })],
  ["openGraphPage every field", (v) => openGraphPage({ title: v, description: v, image: v, url: v })]
]

const SENTINEL = "SENTINELxyz"

describe("every page escapes the values put into it", () => {
  const cases = PAGES.flatMap(([name, build]) => PAYLOADS.map((payload) => [`${name}: ${payload}`, build, payload] as const))
  it.each(cases)("%s", (_name, build, payload) => {
    const page = build(payload)
    // The payload appears only escaped, exactly where a harmless value would: no new markup.
    expect(build(SENTINEL)).toContain(SENTINEL)
    expect(page).toBe(build(SENTINEL).replaceAll(SENTINEL, escapeHtml(payload)))
    expect(page).not.toContain(payload)
    expect(page.toLowerCase()).not.toContain("<script")
    expect(page.toLowerCase()).not.toContain("<img")
  })

  it("the escaped value is still there, readable", () => {
    const title = `"><script>alert(1)</script>`
    expect(landingPage(title)).toContain(escapeHtml(title))
    expect(passwordPage(title, "ask")).toContain(`action="${escapeHtml(title)}"`)
    expect(openGraphPage({ title, description: null, image: null, url: "https://e.com/" })).toContain(`<title>${escapeHtml(title)}</title>`)
  })
})

describe("passwordPage", () => {
  const ACTION = "/launch?ref=mail&x=1"
  it.each(["ask", "wrong", "limited"] as const)("state %s: a POST form to the action, a blank password field, nothing else variable", (state) => {
    const page = passwordPage(ACTION, state)
    expect(page).toContain(`<form method="post" action="${escapeHtml(ACTION)}">`)
    expect(count(page, "<form")).toBe(1)
    expect(count(page, "<input")).toBe(1)
    expect(page).toMatch(/<input type="password" name="password"/)
    expect(page).not.toMatch(/\svalue=/)
    expect(page).not.toMatch(/type="hidden"/)
    expect(page).not.toMatch(/argon2|\$argon2id\$/i)
    // The page depends only on the action and the state: swapping the action is the only difference.
    expect(passwordPage("/other", state).replace('action="/other"', "ACTION")).toBe(page.replace(`action="${escapeHtml(ACTION)}"`, "ACTION"))
  })

  it.each([
    ["ask", [], ["That password is not right", "Too many attempts"]],
    ["wrong", ["That password is not right"], ["Too many attempts"]],
    ["limited", ["Too many attempts"], ["That password is not right"]]
  ] as const)("state %s shows the right message", (state, shown, hidden) => {
    const page = passwordPage("/s", state)
    for (const text of shown) expect(page).toContain(text)
    for (const text of hidden) expect(page).not.toContain(text)
  })
})

describe("openGraphPage", () => {
  const metas = (page: string) => {
    const found: Record<string, string> = {}
    for (const m of page.matchAll(/<meta (property|name)="([^"]+)" content="([^"]*)">/g)) found[m[2]] = unescapeHtml(m[3])
    return found
  }

  it("carries og:title, og:description, og:image, og:url and the Twitter card", () => {
    const og = { title: "Launch day", description: "Everything about it", image: "https://cdn.example.com/card.png?w=1200&h=630", url: "https://example.com/launch" }
    expect(metas(openGraphPage(og))).toMatchObject({
      "og:title": og.title,
      "og:description": og.description,
      "og:image": og.image,
      "og:url": og.url,
      "og:type": "website",
      "twitter:card": "summary_large_image",
      "twitter:title": og.title,
      "twitter:description": og.description,
      "twitter:image": og.image
    })
  })

  it("omits the tags of fields that are not set", () => {
    const found = metas(openGraphPage({ title: "Only a title", description: null, image: null, url: "https://example.com/" }))
    expect(found["og:title"]).toBe("Only a title")
    expect(found["twitter:card"]).toBe("summary")
    for (const absent of ["og:description", "og:image", "twitter:description", "twitter:image"]) expect(found).not.toHaveProperty(absent)
  })

  it("injected values stay inside their content attribute", () => {
    const og = { title: `"><script>alert(1)</script>`, description: `' onload='x`, image: `https://x/"><svg onload=alert(1)>`, url: "https://example.com/?a=1&b=2" }
    const page = openGraphPage(og)
    const found = metas(page)
    expect(found["og:title"]).toBe(og.title)
    expect(found["og:description"]).toBe(og.description)
    expect(found["og:image"]).toBe(og.image)
    expect(found["og:url"]).toBe(og.url)
    expect(page.toLowerCase()).not.toContain("<svg")
    expect(count(page, "<meta")).toBe(3 + 9)
  })
})

describe("appHandOffPage", () => {
  /**
   * Runs the page's script with a fake browser (its document holds the page's one data element,
   * attributes unescaped as a browser would) and reports where it sends the visitor.
   */
  const run = (page: string) => {
    const scripts = [...page.matchAll(/<script>([\s\S]*?)<\/script>/gi)].map((m) => m[1])
    expect(scripts).toHaveLength(1)
    const element = /<p id="handoff" data-app="([^"]*)" data-web="([^"]*)">/.exec(page)
    expect(element).not.toBeNull()
    const dataset = { app: unescapeHtml(element![1]), web: unescapeHtml(element![2]) }
    const document = { getElementById: (id: string) => (id === "handoff" ? { dataset } : null) }
    const visited: Array<string> = []
    const location = {
      set href(url: string) {
        visited.push(`href ${url}`)
      },
      replace: (url: string) => visited.push(`replace ${url}`)
    }
    runInNewContext(scripts[0], { document, location, setTimeout: (fn: () => void) => fn() })
    return visited
  }

  const rows: ReadonlyArray<readonly [name: string, appUrl: string, webUrl: string]> = [
    ["plain URLs", "youtube://www.youtube.com/watch?v=1", "https://www.youtube.com/watch?v=1"],
    ["</script> in the web URL", "youtube://watch", "https://example.com/</script><script>alert(1)</script>"],
    ["</SCRIPT > in the app URL", "app://x/</SCRIPT ><script>alert(1)//", "https://example.com/"],
    ["quotes and backslashes", `twitter://user?screen_name=a"b'c\\`, `https://example.com/?q="';\\`],
    ["HTML comment openers", "app://<!--", "https://example.com/<!--<script>"],
    ["line separators", "app://a\u2028b", "https://example.com/\u2029"],
    ...PAYLOADS.map((p) => [`payload in both: ${p}`, `app://x/${p}`, `https://example.com/${p}`] as const)
  ]
  it.each(rows)("%s: cannot break out of its attributes, and hands off to exactly the given URLs", (_name, appUrl, webUrl) => {
    const page = appHandOffPage(appUrl, webUrl)
    expect(count(page.toLowerCase(), "<script")).toBe(1)
    expect(count(page.toLowerCase(), "</script")).toBe(1)
    expect(run(page)).toEqual([`replace ${webUrl}`, `href ${appUrl}`])
    const href = /<a href="([^"]*)">/.exec(page)![1]
    expect(unescapeHtml(href)).toBe(webUrl)
  })

  it("the script is the same whatever the URLs (so one hash allows it)", () => {
    const script = (page: string) => /<script>([\s\S]*?)<\/script>/.exec(page)![1]
    expect(script(appHandOffPage("a://1", "https://one.example/"))).toBe(script(appHandOffPage(`b://"'<>`, "https://two.example/?q=</script>")))
  })
})

describe("Content-Security-Policy", () => {
  const hash = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`
  const inline = (page: string, tag: "script" | "style") => [...page.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, "gi"))].map((m) => m[1])
  const directives = (csp: string) => new Map(csp.split(";").map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values]))

  const PAGES_SERVED: ReadonlyArray<readonly [name: string, page: string, csp: string]> = [
    ["notFoundPage", notFoundPage(), PAGE_CSP],
    ["expiredPage", expiredPage(), PAGE_CSP],
    ["landingPage", landingPage("go.example.com"), PAGE_CSP],
    ["passwordPage", passwordPage("/s?x=1", "wrong"), PAGE_CSP],
    ["openGraphPage", openGraphPage({ title: "T", description: "D", image: "https://cdn.example/i.png", url: "https://example.com/" }), PAGE_CSP],
    ["badRequestPage", badRequestPage("The request names no host."), PAGE_CSP],
    ["methodNotAllowedPage", methodNotAllowedPage(), PAGE_CSP],
    ["payloadTooLargePage", payloadTooLargePage(), PAGE_CSP],
    ["errorPage", errorPage(), PAGE_CSP],
    ["appHandOffPage", appHandOffPage("youtube://www.youtube.com/watch?v=1", "https://www.youtube.com/watch?v=1"), HANDOFF_CSP]
  ]

  it.each(PAGES_SERVED)("%s: every inline style and script is allowed by its hash, nothing else runs or loads", (_name, page, csp) => {
    const policy = directives(csp)
    expect(policy.get("default-src")).toEqual(["'none'"])
    expect(policy.get("frame-ancestors")).toEqual(["'none'"])
    expect(policy.get("base-uri")).toEqual(["'none'"])
    expect(policy.get("form-action")).toEqual(["'self'", "https:", "http:"])
    const styles = inline(page, "style")
    expect(styles).toHaveLength(1)
    expect(policy.get("style-src")).toEqual(styles.map(hash))
    const scripts = inline(page, "script")
    if (scripts.length === 0) expect(policy.has("script-src")).toBe(false)
    else expect(policy.get("script-src")).toEqual(scripts.map(hash))
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|nonce-|\*/)
    // Inline event handlers and style attributes would need 'unsafe-hashes': none.
    expect(page).not.toMatch(/\son[a-z]+=|\sstyle=/i)
  })

  it("the policy headers of pages: not frameable, no sniffing, not stored, a referrer policy", () => {
    for (const headers of [PAGE_HEADERS, HANDOFF_PAGE_HEADERS]) {
      const map = new Map(headers)
      expect(map.get("x-frame-options")).toBe("DENY")
      expect(map.get("x-content-type-options")).toBe("nosniff")
      expect(map.get("cache-control")).toBe("private, no-store")
      expect(map.get("content-type")).toBe("text/html; charset=utf-8")
      expect(map.get("referrer-policy")).toMatch(/^(no-referrer|strict-origin-when-cross-origin)$/)
    }
    expect(new Map(PAGE_HEADERS).get("content-security-policy")).toBe(PAGE_CSP)
    expect(new Map(HANDOFF_PAGE_HEADERS).get("content-security-policy")).toBe(HANDOFF_CSP)
    expect(new Map(PAGE_HEADERS).get("referrer-policy")).toBe("no-referrer")
    expect(new Map(HANDOFF_PAGE_HEADERS).get("referrer-policy")).toBe("strict-origin-when-cross-origin")
  })
})

describe("static pages", () => {
  it.each([
    ["notFoundPage", notFoundPage(), "Link not found"],
    ["expiredPage", expiredPage(), "expired"],
    ["landingPage", landingPage("go.example.com"), "go.example.com"],
    ["badRequestPage", badRequestPage("The request names no host."), "Bad request"],
    ["methodNotAllowedPage", methodNotAllowedPage(), "Method not allowed"],
    ["payloadTooLargePage", payloadTooLargePage(), "too large"],
    ["errorPage", errorPage(), "Something went wrong"]
  ])("%s is a complete, self-contained, non-indexed page", (_name, page, text) => {
    expect(page.startsWith("<!doctype html>")).toBe(true)
    expect(page).toContain('<meta charset="utf-8">')
    expect(page).toContain('<meta name="robots" content="noindex">')
    expect(page).toContain(text)
    expect(page).not.toMatch(/<(script|link|img)\b/i)
    expect(page.trimEnd().endsWith("</html>")).toBe(true)
  })
})
