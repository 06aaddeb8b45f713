import { createHash } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type EngineStack, startEngineStack } from "../support/engineStack.ts"
import { setTimeout as sleep } from "node:timers/promises"
import { eventually } from "../support/processes.ts"
import { exchange, headerOf, type RawRequest, rawRequest, type RawResponse } from "../support/rawHttp.ts"

/**
 * The engine's HTTP as a raw socket sees it (engine/http/server.ts): pipelined requests around
 * answers that need the database, what Host headers get, the policy headers of pages and
 * redirects, and what goes out in Location. A `ricochet engine` on PostgreSQL and NATS; a lock
 * the test holds on a table keeps a cache miss pending for as long as the test needs.
 */

const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"
const DESKTOP = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

describe("engine HTTP over raw sockets", () => {
  let stack: EngineStack
  let port: number
  let host: string

  const req = (target: string, fields: Partial<RawRequest> = {}) =>
    rawRequest({ target, host, headers: [["User-Agent", DESKTOP]], ...fields })
  const get = (target: string, hostHeader: string | null = host) => req(target, { host: hostHeader })
  const head = (target: string) => req(target, { method: "HEAD" })
  const postPassword = (target: string, password: string) =>
    req(target, { method: "POST", headers: [["Content-Type", "application/x-www-form-urlencoded"]], body: `password=${password}` })
  /** One request, one answer. */
  const ask = async (bytes: Buffer, isHead = false): Promise<RawResponse> => {
    const result = await exchange(port, [bytes], [isHead])
    expect(result.malformed).toBeNull()
    expect(result.responses, result.received.toString("latin1")).toHaveLength(1)
    return result.responses[0]
  }

  const status = async () => (await (await fetch(`${stack.engine.baseUrl}/.well-known/ricochet/status`)).json()) as { queries: number; blockingLoads: number }

  const createLink = async (input: Record<string, unknown>) => {
    const res = await stack.api.post("/v1/links", input)
    expect(res.status, JSON.stringify(res.body)).toBe(201)
  }

  beforeAll(async () => {
    stack = await startEngineStack()
    port = stack.engine.port
    host = stack.host
    await createLink({ url: "https://example.com/hit", slug: "hit" })
    await createLink({ url: "https://example.com/pw", slug: "pw", password: "right" })
    await createLink({ url: "https://example.com/pq", slug: "pq", passQuery: true })
    await createLink({ url: "https://bücher.example/straße?q=ä#é", slug: "uni" })
    await createLink({ url: "https://www.youtube.com/watch?v=1", slug: "yt", openInApp: true })
    for (const slug of ["m1", "m2", "m3"]) await createLink({ url: `https://example.com/${slug}`, slug })
    // The engine learns the slugs over NATS; then the links used as cache hits are loaded once.
    await eventually(async () => (await ask(get("/hit"))).status === 302, 5_000)
    // On every HTTP worker (the kernel picks one per connection; what one loads is passed to the
    // others only when no change event came meanwhile): the tests below need them as cache hits.
    for (let connection = 0; connection < 16; connection++) for (const slug of ["hit", "pw", "pq", "yt"]) await ask(get(`/${slug}`))
  }, 120_000)

  afterAll(async () => {
    await stack?.stop()
  })

  describe("pipelining", () => {
    it("requests that arrive while an answer waits on the database are answered after it, in order", async () => {
      const release = await stack.lockTable("domains")
      let released = false
      try {
        const result = await exchange(port, [
          // An unknown host: its lookup waits on the lock.
          get("/hit", "nobody-1.example"),
          200,
          // Arrive while that answer is pending: hits, HEAD, a non-slug 404, a password POST.
          Buffer.concat([get("/hit"), head("/hit"), get("/a.b"), postPassword("/pw", "wrong")]),
          200,
          async () => {
            released = true
            await release()
          },
          20,
          // Likely while the password is being verified.
          get("/hit")
        ], [false, false, true, false, false, false], 20_000)
        expect(result.malformed).toBeNull()
        expect(result.responses.map((r) => r.status), result.received.toString("latin1").slice(0, 500)).toEqual([404, 302, 302, 404, 403, 302])
        expect(result.responses.map((r) => headerOf(r, "location") ?? null)).toEqual([
          null, "https://example.com/hit", "https://example.com/hit", null, null, "https://example.com/hit"
        ])
        expect(result.responses[2].body).toBe("")
      } finally {
        if (!released) await release()
      }
    })

    it("link misses too: one pending per read, the rest answered synchronously, in order", async () => {
      const release = await stack.lockTable("links")
      let released = false
      try {
        const result = await exchange(port, [
          get("/m1"),
          200,
          Buffer.concat([get("/hit"), get("/m2")]),
          200,
          async () => {
            released = true
            await release()
          },
          200,
          Buffer.concat([head("/m1"), get("/hit")])
        ], [false, false, false, true, false], 20_000)
        expect(result.malformed).toBeNull()
        expect(result.responses.map((r) => `${r.status} ${headerOf(r, "location")}`)).toEqual([
          "302 https://example.com/m1",
          "302 https://example.com/hit",
          "302 https://example.com/m2",
          "302 https://example.com/m1",
          "302 https://example.com/hit"
        ])
      } finally {
        if (!released) await release()
      }
    })

    it("one write of hits, 404s, the landing page, HEADs and a password POST last: every answer, in order", async () => {
      const result = await exchange(port, [
        Buffer.concat([get("/hit"), head("/hit"), get("/a.b"), get("/"), head("/a.b"), get("/pq?x=1"), postPassword("/pw", "wrong")])
      ], [false, true, false, false, true, false, false])
      expect(result.malformed).toBeNull()
      expect(result.responses.map((r) => r.status)).toEqual([302, 302, 404, 200, 404, 302, 403])
      expect(result.responses[4].body).toBe("")
      expect(Number(headerOf(result.responses[4], "content-length"))).toBe(Buffer.byteLength(result.responses[2].body))
    })

    it.each<readonly [string, () => Promise<ReadonlyArray<Buffer>>, ReadonlyArray<string>]>([
      ["an unknown host, then a hit", async () => [get("/hit", "nobody-2.example"), get("/hit")], ["404 null", "302 https://example.com/hit"]],
      ["a link created just now (never visited), then a hit", async () => {
        await createLink({ url: "https://example.com/fresh", slug: "fresh" })
        // Its create event reaches the engine over NATS within milliseconds (until then the
        // domain's slug filter says no such slug); unvisited, the link is not in any cache.
        await sleep(1_000)
        return [get("/fresh"), get("/hit")]
      }, ["302 https://example.com/fresh", "302 https://example.com/hit"]],
      ["an unknown host's landing page and a non-slug path, then a hit", async () => [get("/", "nobody-3.example"), get("/a.b", "nobody-4.example"), get("/hit")], ["404 null", "404 null", "302 https://example.com/hit"]],
      ["three uncached links in a row, HEAD among them", async () => [head("/m1"), get("/m2"), get("/m3")], ["302 https://example.com/m1", "302 https://example.com/m2", "302 https://example.com/m3"]]
    ])("cache misses pipelined in one write with more requests: every one answered, in order (%s)", async (_name, requests, expected) => {
      const before = await status()
      const bytes = await requests()
      const heads = bytes.map((b) => b.toString("latin1").startsWith("HEAD "))
      const result = await exchange(port, [Buffer.concat(bytes)], heads)
      expect(result.malformed).toBeNull()
      expect(result.responses.map((r) => `${r.status} ${headerOf(r, "location") ?? null}`), result.received.toString("latin1").slice(0, 300)).toEqual(expected)
      // Answered by an HTTP worker blocking for its query (engine/cache/linkCache.ts, loadLinkNow).
      expect((await status()).blockingLoads).toBeGreaterThan(before.blockingLoads)
    })
  })

  describe("Host", () => {
    it.each([
      ["an empty Host", ""],
      ["a Host with a space", "exa mple.com"],
      ["a Host with userinfo", "user@evil.com"],
      ["a Host with a path", "evil.com/x"],
      ["a Host of raw UTF-8 bytes", "b\u00c3\u00bccher.example"]
    ])("%s: 400 page, no lookup", async (_name, value) => {
      const before = (await (await fetch(`${stack.engine.baseUrl}/.well-known/ricochet/status`)).json()) as { queries: number }
      const answer = await ask(get("/hit", value))
      expect(answer.status).toBe(400)
      expect(answer.body).toContain("Bad request")
      expect(headerOf(answer, "content-security-policy")).toContain("frame-ancestors 'none'")
      const after = (await (await fetch(`${stack.engine.baseUrl}/.well-known/ricochet/status`)).json()) as { queries: number }
      expect(after.queries).toBe(before.queries)
    })

    it("a password POST with an empty Host: 400", async () => {
      expect((await ask(rawRequest({ method: "POST", target: "/pw", host: "", body: "password=right" }))).status).toBe(400)
    })

    it("an IP literal is an unknown host: 404 page", async () => {
      expect((await ask(get("/hit", "[::1]:8080"))).status).toBe(404)
      expect((await ask(get("/hit", "127.0.0.1"))).status).toBe(404)
    })

    it.each(["MY-WORKSPACE.LOCALHOST", "my-workspace.localhost:8080", "my-workspace.localhost.", "My-Workspace.Localhost.:443"])("%s is the workspace's host", async (value) => {
      const answer = await ask(get("/hit", value))
      expect([answer.status, headerOf(answer, "location")]).toEqual([302, "https://example.com/hit"])
    })

    it("HTTP/1.1 without Host, HTTP/1.0, absolute-form: uWS.js 20.30 never hands them to the engine; its idle timeout closes the connection", async () => {
      // Documents uWS.js 20.30: its parser takes these for an incomplete request and waits for
      // more bytes (no handler runs, so the engine cannot answer 400) until the connection has
      // been idle about 10 s.
      const cases = [
        rawRequest({ target: "/hit", host: null }),
        rawRequest({ target: "/hit", host: "my-workspace.localhost", version: "HTTP/1.0" }),
        rawRequest({ target: "/hit", host: null, version: "HTTP/1.0" }),
        rawRequest({ target: "http://my-workspace.localhost/hit", host: "my-workspace.localhost" })
      ]
      const started = Date.now()
      const results = await Promise.all(cases.map((bytes) => exchange(port, [bytes], [false], 20_000)))
      for (const result of results) expect({ closed: result.closed, received: result.received.length }).toEqual({ closed: true, received: 0 })
      expect(Date.now() - started).toBeGreaterThan(5_000)
      // The engine is unharmed.
      expect((await ask(get("/hit"))).status).toBe(302)
    }, 30_000)
  })

  describe("policy headers", () => {
    const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`
    const inline = (html: string, tag: string) => [...html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, "g"))].map((m) => m[1])

    const expectPage = (answer: RawResponse, status: number, referrerPolicy: string) => {
      expect(answer.status).toBe(status)
      expect(headerOf(answer, "content-type")).toBe("text/html; charset=utf-8")
      expect(headerOf(answer, "cache-control")).toBe("private, no-store")
      expect(headerOf(answer, "x-content-type-options")).toBe("nosniff")
      expect(headerOf(answer, "x-frame-options")).toBe("DENY")
      expect(headerOf(answer, "referrer-policy")).toBe(referrerPolicy)
      expect(headerOf(answer, "uwebsockets")).toBeUndefined()
      const csp = headerOf(answer, "content-security-policy")!
      expect(csp).toMatch(/^default-src 'none'; /)
      expect(csp).toContain("frame-ancestors 'none'")
      // The page's own inline style and script are exactly what the policy allows.
      expect(csp).toContain(`style-src ${inline(answer.body, "style").map(sha256).join(" ")};`)
      const scripts = inline(answer.body, "script")
      if (scripts.length === 0) expect(csp).not.toContain("script-src")
      else expect(csp).toContain(`script-src ${scripts.map(sha256).join(" ")}`)
      return csp
    }

    it("redirects: no-store, the redirect referrer policy, no page policy", async () => {
      for (const [bytes, isHead] of [[get("/hit"), false], [head("/hit"), true]] as const) {
        const answer = await ask(bytes, isHead)
        expect(headerOf(answer, "cache-control")).toBe("private, no-store")
        expect(headerOf(answer, "referrer-policy")).toBe("strict-origin-when-cross-origin")
        expect(headerOf(answer, "content-security-policy")).toBeUndefined()
        expect(headerOf(answer, "uwebsockets")).toBeUndefined()
      }
    })

    it("the password form cannot be framed, posts only to its origin, runs no script", async () => {
      const csp = expectPage(await ask(get("/pw")), 200, "no-referrer")
      expect(csp).toContain("form-action 'self'")
      expectPage(await ask(postPassword("/pw", "wrong")), 403, "no-referrer")
    })

    it("the 404, landing, 405 and bad-request pages", async () => {
      expectPage(await ask(get("/a.b")), 404, "no-referrer")
      expectPage(await ask(get("/")), 200, "no-referrer")
      expectPage(await ask(get("/hit", "nobody-3.example")), 404, "no-referrer")
      const notAllowed = await ask(req("/hit", { method: "PUT" }))
      expectPage(notAllowed, 405, "no-referrer")
      expect(headerOf(notAllowed, "allow")).toBe("GET, HEAD, POST")
      expectPage(await ask(get("/hit", "")), 400, "no-referrer")
    })

    it("the app hand-off page: its one constant script allowed by hash, the destination told the origin only", async () => {
      const answer = await ask(req("/yt", { headers: [["User-Agent", IPHONE]] }))
      expectPage(answer, 200, "strict-origin-when-cross-origin")
      expect(inline(answer.body, "script")).toHaveLength(1)
      expect(answer.body).toContain('data-app="youtube://www.youtube.com/watch?v=1"')
    })

    it("the 303 after the right password: no-store and the redirect referrer policy", async () => {
      const answer = await ask(postPassword("/pw", "right"))
      expect(answer.status).toBe(303)
      expect(headerOf(answer, "location")).toBe("/pw")
      expect(headerOf(answer, "cache-control")).toBe("private, no-store")
      expect(headerOf(answer, "referrer-policy")).toBe("strict-origin-when-cross-origin")
    })
  })

  describe("operator metrics", () => {
    it("count cache hits and how late change events arrived over NATS", async () => {
      const metricsUrl = `http://127.0.0.1:${stack.engine.env.RICOCHET_ENGINE_ADMIN_PORT}/metrics`
      const series = (text: string, name: string) => Number(text.split("\n").find((line) => line.startsWith(`${name} `))?.slice(name.length + 1) ?? NaN)
      const before = await (await fetch(metricsUrl)).text()
      await ask(get("/hit"))
      await ask(get("/hit"))
      const after = await (await fetch(metricsUrl)).text()
      expect(series(after, "ricochet_engine_cache_hits_total") - series(before, "ricochet_engine_cache_hits_total")).toBeGreaterThanOrEqual(2)
      // Every link created in beforeAll reached the engine as an event stamped with its change time.
      expect(series(after, "ricochet_engine_bus_lag_seconds_count")).toBeGreaterThanOrEqual(8)
      expect(series(after, `ricochet_engine_bus_lag_seconds_bucket{le="+Inf"}`)).toBe(series(after, "ricochet_engine_bus_lag_seconds_count"))
    })
  })

  describe("Location", () => {
    it("a non-ASCII destination goes out percent-encoded, its IDN host in punycode", async () => {
      const answer = await ask(get("/uni"))
      expect(headerOf(answer, "location")).toBe("https://xn--bcher-kva.example/stra%C3%9Fe?q=%C3%A4#%C3%A9")
      expect(answer.headers.every(([, value]) => /^[\x20-\x7e]*$/.test(value))).toBe(true)
    })

    it.each([
      ["%ff stays %ff", "/pq?q=%ff&r=%FE", "https://example.com/pq?q=%ff&r=%FE"],
      ["@evil.com stays in the query", "/pq?@evil.com", "https://example.com/pq?@evil.com"],
      ["a raw # cannot become the fragment", "/pq?a=1#x", "https://example.com/pq?a=1%23x"],
      ["raw UTF-8 bytes are percent-encoded", "/pq?w=\u00c3\u00a9", "https://example.com/pq?w=%C3%A9"],
      ["an invalid byte arrives as U+FFFD and goes out encoded", "/pq?w=\u00ff", "https://example.com/pq?w=%EF%BF%BD"],
      ["encoded CR LF stays encoded", "/pq?x=%0d%0aSet-Cookie:%20a=1", "https://example.com/pq?x=%0d%0aSet-Cookie:%20a=1"],
      ["quotes and angle brackets", '/pq?x="<b>"', "https://example.com/pq?x=%22%3Cb%3E%22"]
    ])("passQuery: %s", async (_name, target, location) => {
      const answer = await ask(get(target))
      expect([answer.status, headerOf(answer, "location")]).toEqual([302, location])
      expect(headerOf(answer, "set-cookie")).toBeUndefined()
    })

    it("the password form's 303 goes back to the URL asked for, made header-safe", async () => {
      const answer = await ask(postPassword("/pw?x=1#y&z=\u00c3\u00a9", "right"))
      expect([answer.status, headerOf(answer, "location")]).toEqual([303, "/pw?x=1%23y&z=%C3%A9"])
    })
  })
})
