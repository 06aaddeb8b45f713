import { runInNewContext } from "node:vm"
import { describe, expect, it } from "vitest"
import { appHandOffPage, escapeHtml, expiredPage, landingPage, notFoundPage, openGraphPage, passwordPage } from "../../engine/pages/html.ts"

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
  /** Runs the page's script with a fake browser and reports where it sends the visitor. */
  const run = (page: string) => {
    const scripts = [...page.matchAll(/<script>([\s\S]*?)<\/script>/gi)].map((m) => m[1])
    expect(scripts).toHaveLength(1)
    const visited: Array<string> = []
    const location = {
      set href(url: string) {
        visited.push(`href ${url}`)
      },
      replace: (url: string) => visited.push(`replace ${url}`)
    }
    runInNewContext(scripts[0], { location, setTimeout: (fn: () => void) => fn() })
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
  it.each(rows)("%s: cannot break out of the script, and hands off to exactly the given URLs", (_name, appUrl, webUrl) => {
    const page = appHandOffPage(appUrl, webUrl)
    expect(count(page.toLowerCase(), "<script")).toBe(1)
    expect(count(page.toLowerCase(), "</script")).toBe(1)
    expect(run(page)).toEqual([`replace ${webUrl}`, `href ${appUrl}`])
    const href = /<a href="([^"]*)">/.exec(page)![1]
    expect(unescapeHtml(href)).toBe(webUrl)
  })
})

describe("static pages", () => {
  it.each([
    ["notFoundPage", notFoundPage(), "Link not found"],
    ["expiredPage", expiredPage(), "expired"],
    ["landingPage", landingPage("go.example.com"), "go.example.com"]
  ])("%s is a complete, self-contained, non-indexed page", (_name, page, text) => {
    expect(page.startsWith("<!doctype html>")).toBe(true)
    expect(page).toContain('<meta charset="utf-8">')
    expect(page).toContain('<meta name="robots" content="noindex">')
    expect(page).toContain(text)
    expect(page).not.toMatch(/<(script|link|img)\b/i)
    expect(page.trimEnd().endsWith("</html>")).toBe(true)
  })
})
