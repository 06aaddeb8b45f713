import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type EngineStack, startEngineStack } from "../support/engineStack.ts"
import { eventually } from "../support/processes.ts"
import { exchange, headerOf, parseResponses, rawRequest, type RawResponse } from "../support/rawHttp.ts"

/**
 * Property-based fuzz of the redirect engine over raw sockets (a `ricochet engine` process on
 * PostgreSQL and NATS): random request lines, hosts, headers and bodies, pipelined on one
 * connection, in one write or cut anywhere. Properties:
 * - the process never dies;
 * - every response is well-formed HTTP/1.1 (status line, `name: value` headers in printable
 *   ASCII, so no CR or LF from a request ever reaches one, one Content-Length, no body on HEAD),
 *   carries only headers the engine writes, and is never a 5xx;
 * - responses come in request order, each one an answer its request may get;
 * - every request is answered, except: after a request uWS.js 20.30 never hands to a handler
 *   (engine/http/server.ts lists them) nothing more is; a header block over 4 KB may close the
 *   connection; and a connection may close after a request answered asynchronously (a POST, an
 *   uncached host) when more requests came behind it in the same read (see later() there).
 * RICOCHET_FUZZ_RUNS sets the number of runs (default 50, about 30 s on two busy cores), RICOCHET_FUZZ_SEED
 * replays a failure; the seed is printed when a run fails.
 */

const RUNS = Number(process.env.RICOCHET_FUZZ_RUNS ?? 50)
const SEED = Number(process.env.RICOCHET_FUZZ_SEED ?? Date.now() % 2 ** 31)

const HOST = "my-workspace.localhost"
const SLUGS = ["hit", "pw", "pq", "yt", "og", "uni"] as const
/** Slug-shaped names that are no link; looked up once before the runs, so answered from the cache. */
const UNKNOWN_SLUGS = ["nope", "missing-1", "Hit", "x_y", "a", "zzzzzzz"]
/** Host names that are nobody's, looked up once before the runs. */
const UNKNOWN_HOSTS = ["nobody.example", "other.example", "127.0.0.1", "localhost"]

const UA = {
  desktop: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  iphone: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
  android: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36",
  instagram: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/120.0.0.0 Mobile Safari/537.36 Instagram 312.0.0.0 Android",
  twitterbot: "Twitterbot/1.0",
  curl: "curl/8.5.0"
}

/** What the engine may answer a request that reaches it. */
type HostClass = "known" | "unknown" | "address" | "invalid" | "random"

interface FuzzRequest {
  readonly method: string
  readonly target: string
  readonly hostHeader: string | null
  readonly hostClass: HostClass
  readonly headers: ReadonlyArray<readonly [string, string]>
  readonly body: string | undefined
  /** Why uWS.js never hands it to a handler, or null. */
  readonly refused: string | null
  /** Ends the connection once answered (`Connection: close`). */
  readonly closes: boolean
  readonly version: string
  /** Lines end in LF alone. */
  readonly bareLf: boolean
}

// ---------- generators ----------

/** Bytes a request target may hold raw (above space; latin1 code points, so \u0080-\u00ff go out as single bytes). */
const targetChar = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(..."abcXYZ019-_~.!$&'()*+,;=:@/") },
  { weight: 2, arbitrary: fc.constantFrom("%00", "%ff", "%FF", "%0d%0a", "%2e%2e", "%25", "%", "%zz", "%c3%a9", "..", "//", "#", "\\") },
  { weight: 1, arbitrary: fc.constantFrom("\u00ff", "\u00c3\u00a9", "\u0080", "\u007f", '"', "<", ">", "`", "{", "}", "|", "^", "[", "]") }
)
const junk = (max: number) => fc.string({ unit: targetChar, minLength: 1, maxLength: max })

const query = fc.oneof(
  { weight: 4, arbitrary: fc.constant("") },
  { weight: 1, arbitrary: fc.constantFrom("?q=%ff", "?@evil.com", "?a=1&a=2&utm_source=me", "?x=%0d%0aSet-Cookie:%20a=1", "?", "?&&=", "?#frag", "?utm%5Fsource=x") },
  { weight: 2, arbitrary: junk(40).map((q) => `?${q}`) }
)

const slugPath = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...SLUGS).chain((slug) => fc.constantFrom(`/${slug}`, `/${slug}/`)) },
  { weight: 2, arbitrary: fc.constantFrom(...UNKNOWN_SLUGS).map((slug) => `/${slug}`) },
  { weight: 1, arbitrary: fc.constant("/") },
  // Not a slug: at least one character outside [A-Za-z0-9_-].
  { weight: 2, arbitrary: junk(30).map((p) => `/${p}.`) },
  { weight: 1, arbitrary: fc.constantFrom("/%00", "/hit%00", "/%ff", "/../etc/passwd", "//hit", "/hit/extra", "/.well-known/x") },
  // Too long to be a slug (slugs are at most 190 characters).
  { weight: 1, arbitrary: fc.integer({ min: 191, max: 6_000 }).map((n) => `/${"a".repeat(n)}`) }
)

const knownHost = fc.record({
  upper: fc.constantFrom("lower", "upper", "mixed"),
  dot: fc.boolean(),
  port: fc.constantFrom("", ":8080", ":443", ":")
}).map(({ upper, dot, port }) => {
  const name = upper === "lower" ? HOST : upper === "upper" ? HOST.toUpperCase() : "My-Workspace.LocalHost"
  return `${name}${dot ? "." : ""}${port}`
})

/**
 * What a Host header names for the engine (docs/architecture.md#what-goes-out, restated here): the port, one
 * trailing dot and the case do not count; a name is labels of letters, digits, `-` and `_`; an
 * IPv6 literal is an address; anything else is invalid. A name not looked up before is "random".
 */
const classifyHost = (header: string): HostClass => {
  // uWS.js 20.30 trims a header value's ends of every byte its signed `char` puts at or below a
  // space, bytes 0x80 and up included: `-a\u00e9` reaches the engine as `-a`, a name.
  let host = header.replace(/^[\x00-\x20\x80-\xff]+|[\x00-\x20\x80-\xff]+$/g, "")
  const colon = host.lastIndexOf(":")
  if (colon > 0 && !host.endsWith("]")) host = host.slice(0, colon)
  if (host.endsWith(".")) host = host.slice(0, -1)
  host = host.toLowerCase()
  if (host.length <= 253 && /^[a-z0-9_-]{1,63}(?:\.[a-z0-9_-]{1,63})*$/.test(host)) return "random"
  if (/^\[[0-9a-f:.]+\]$/.test(host)) return "address"
  return "invalid"
}

const hostChoice: fc.Arbitrary<{ header: string | null; hostClass: HostClass }> = fc.oneof(
  { weight: 12, arbitrary: knownHost.map((header) => ({ header, hostClass: "known" as const })) },
  { weight: 2, arbitrary: fc.constantFrom(...UNKNOWN_HOSTS).map((header) => ({ header, hostClass: "unknown" as const })) },
  { weight: 1, arbitrary: fc.constantFrom("[::1]", "[::1]:8080", "[2001:db8::1]:443").map((header) => ({ header, hostClass: "address" as const })) },
  {
    weight: 2,
    arbitrary: fc.oneof(
      fc.constantFrom("", " ", "exa mple.com", "evil.com/x", "user@evil.com", "h\u00fc.example", "a..b", ".", ":8080", "[::1", "a".repeat(300)),
      fc.string({ unit: fc.constantFrom(..."ab.-_:@/[]% \u00e9\u00ff"), minLength: 1, maxLength: 20 })
    ).map((header) => ({ header, hostClass: classifyHost(header) }))
  },
  // A name never seen: looked up in the database, answered asynchronously.
  { weight: 1, arbitrary: fc.stringMatching(/^[a-z0-9]{1,12}$/).map((name) => ({ header: `r-${name}.example`, hostClass: "random" as const })) }
)

const printable = (max: number) => fc.string({ unit: fc.constantFrom(..." abcdefXYZ0123456789.,;:=/\"'()[]<>@!#$%&*+-_~\u00e9\u00ff\u007f"), maxLength: max })

const extraHeader: fc.Arbitrary<readonly [string, string]> = fc.oneof(
  fc.constantFrom(...Object.values(UA)).map((ua) => ["User-Agent", ua] as const),
  fc.integer({ min: 500, max: 9_000 }).map((n) => ["User-Agent", `Mozilla/5.0 ${"x".repeat(n)}`] as const),
  printable(60).map((v) => ["User-Agent", v] as const),
  printable(80).map((v) => ["X-Forwarded-For", v] as const),
  fc.constantFrom("1.2.3.4, 5.6.7.8", "::1", "999.1.1.1", "unknown", ",,,", "[::1]:80").map((v) => ["X-Forwarded-For", v] as const),
  printable(80).map((v) => ["Cookie", v] as const),
  fc.constantFrom("ricochet_unlock_lnk_x=1.abc", "ricochet_unlock_=;;=;", "a=b; ricochet_unlock_lnk_1=99999999999.x").map((v) => ["Cookie", v] as const),
  printable(40).map((v) => ["Referer", v] as const),
  fc.constantFrom("US", "de", "XX", "T1", "", "USA", "\u00e9\u00e9").map((v) => ["CF-IPCountry", v] as const),
  printable(40).map((v) => ["Signature-Agent", v] as const),
  fc.constantFrom("text/html", "*/*", "application/x-www-form-urlencoded; charset=utf-16").map((v) => ["Accept", v] as const),
  fc.tuple(fc.stringMatching(/^X-[A-Za-z0-9-]{1,20}$/), printable(40))
)

/** What makes uWS.js 20.30 refuse a request (no handler runs); applied to an otherwise valid one. */
const breaker = fc.constantFrom("http/1.0", "absolute-form", "asterisk", "no-host", "space-before-colon", "control-in-value", "folding", "bare-lf", "lowercase-method", "unknown-method", "many-headers")

const request: fc.Arbitrary<FuzzRequest> = fc.record({
  method: fc.oneof(
    { weight: 10, arbitrary: fc.constant("GET") },
    { weight: 3, arbitrary: fc.constant("HEAD") },
    { weight: 2, arbitrary: fc.constant("POST") },
    { weight: 1, arbitrary: fc.constantFrom("PUT", "DELETE", "OPTIONS", "PATCH", "TRACE", "CONNECT") }
  ),
  path: slugPath,
  query,
  host: hostChoice,
  duplicateHost: fc.boolean(),
  headers: fc.array(extraHeader, { maxLength: 6 }),
  getBody: fc.option(printable(200), { freq: 8 }),
  postBody: fc.oneof(
    fc.constantFrom("password=pw", "password=wrong", "password=", "", "password=%ff%00", "a=1&password=pw&password=x"),
    printable(300),
    fc.integer({ min: 4_097, max: 12_000 }).map((n) => `password=${"a".repeat(n)}`)
  ),
  closes: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
  breaker: fc.option(breaker, { freq: 12 })
}).map((r) => {
  const refused = r.breaker ?? null
  let method: string = r.method
  let target = `${r.path}${r.query}`
  let hostHeader = refused === "no-host" ? null : r.host.header
  const headers: Array<readonly [string, string]> = [...r.headers]
  if (r.duplicateHost && hostHeader !== null) headers.push(["Host", "other.example"])
  if (r.closes) headers.push(["Connection", "close"])
  if (refused === "absolute-form") target = `http://${HOST}${target}`
  if (refused === "asterisk") target = "*"
  if (refused === "lowercase-method") method = method.toLowerCase()
  if (refused === "unknown-method") method = "PROPFIND"
  if (refused === "space-before-colon") headers.push(["X-Bad ", "v"])
  if (refused === "control-in-value") headers.push(["X-Bad", "a\u0001b"])
  if (refused === "folding") headers.push(["X-Bad", "a\r\n b"])
  if (refused === "many-headers") for (let i = 0; i < 60; i++) headers.push([`X-Many-${i}`, "v"])
  const body = method === "POST" || method === "post" ? r.postBody : r.getBody ?? undefined
  return { method, target, hostHeader, hostClass: r.host.hostClass, headers, body, refused, closes: r.closes, version: refused === "http/1.0" ? "HTTP/1.0" : "HTTP/1.1", bareLf: refused === "bare-lf" }
})

const bytesOf = (r: FuzzRequest): Buffer => {
  const bytes = rawRequest({ method: r.method, target: r.target, host: r.hostHeader, headers: r.headers, body: r.body, version: r.version })
  return r.bareLf ? Buffer.from(bytes.toString("latin1").replace(/\r\n/g, "\n"), "latin1") : bytes
}

const headBlockSize = (bytes: Buffer) => {
  const end = bytes.indexOf("\r\n\r\n")
  return end < 0 ? bytes.length : end + 4
}

// ---------- oracle ----------

const SLUG = /^[A-Za-z0-9_-]{1,190}$/
const slugOf = (target: string) => {
  const path = target.split("?", 1)[0]
  return path.length > 1 && path.endsWith("/") ? path.slice(1, -1) : path.slice(1)
}

/** The statuses a request that reaches the engine may get. */
const allowedStatuses = (r: FuzzRequest): ReadonlyArray<number> => {
  const method = r.method
  if (method !== "GET" && method !== "HEAD" && method !== "POST") return [405]
  const path = r.target.split("?", 1)[0]
  const slug = slugOf(r.target)
  if (method === "POST") {
    if (r.body !== undefined && Buffer.byteLength(r.body) > 4096) return [413]
    if (r.hostClass === "invalid") return [400]
    if (r.hostClass !== "known") return [404]
    return slug === "pw" ? [303, 403, 429] : [404]
  }
  if (r.hostClass === "invalid") return [400]
  if (r.hostClass !== "known") return [404]
  if (path === "/") return [200]
  if (!SLUG.test(slug)) return [404]
  return (SLUGS as ReadonlyArray<string>).includes(slug) ? [200, 302] : [404]
}

/**
 * May be answered only after an await, and a connection may then close when more requests came in
 * the same read: a password POST, and a miss (a random host) once its HTTP worker has spent its
 * second's blocking budget (engine/cache/linkCache.ts; this fuzz misses faster than that allows).
 */
const asynchronous = (r: FuzzRequest) => r.refused === null && (r.method === "POST" || r.hostClass === "random")

const HEADERS_WE_WRITE = new Set([
  "date", "uwebsockets", "content-length", "content-type", "cache-control", "x-content-type-options", "x-frame-options",
  "content-security-policy", "referrer-policy", "location", "allow", "retry-after", "set-cookie", "connection"
])

const checkResponse = (r: FuzzRequest, response: RawResponse, index: number): string | null => {
  const where = `response ${index} to ${r.method} ${JSON.stringify(r.target.slice(0, 80))} host ${JSON.stringify(r.hostHeader)}`
  if (response.status >= 500) return `${where}: ${response.status}`
  if (!allowedStatuses(r).includes(response.status)) return `${where}: ${response.status}, expected one of ${allowedStatuses(r)}`
  for (const [name] of response.headers) if (!HEADERS_WE_WRITE.has(name)) return `${where}: unexpected header ${name}`
  if (headerOf(response, "set-cookie") !== undefined && response.status !== 303) return `${where}: Set-Cookie on ${response.status}`
  if (response.status >= 300 && response.status < 400) {
    const location = headerOf(response, "location") ?? ""
    if (!/^(?:https?:\/\/|intent:\/\/|\/)[\x21-\x7e]*$/.test(location)) return `${where}: Location ${JSON.stringify(location)}`
    if (location.startsWith("http") && !/^https:\/\/(?:example\.com|xn--bcher-kva\.example|www\.youtube\.com)\//.test(location)) return `${where}: Location ${location}`
  }
  if (headerOf(response, "content-type")?.startsWith("text/html")) {
    if (!headerOf(response, "content-security-policy")?.includes("frame-ancestors 'none'")) return `${where}: page without frame-ancestors`
    if (headerOf(response, "x-frame-options") !== "DENY") return `${where}: page without X-Frame-Options`
  }
  if (r.method === "HEAD" && response.body !== "") return `${where}: HEAD with a body`
  return null
}

describe("engine fuzz: raw HTTP/1.1 over sockets", () => {
  let stack: EngineStack
  let port: number

  beforeAll(async () => {
    stack = await startEngineStack({ RICOCHET_CACHE_TTL_SECONDS: "3600" })
    port = stack.engine.port
    const create = async (input: Record<string, unknown>) => expect((await stack.api.post("/v1/links", input)).status).toBe(201)
    await create({ url: "https://example.com/hit", slug: "hit" })
    await create({ url: "https://example.com/pw", slug: "pw", password: "pw" })
    await create({ url: "https://example.com/pq?keep=1", slug: "pq", passQuery: true, utm: { source: "fuzz" } })
    await create({ url: "https://www.youtube.com/watch?v=1", slug: "yt", openInApp: true, openInBrowser: true })
    await create({ url: "https://example.com/og", slug: "og", title: "T", description: "<d>" })
    await create({ url: "https://bücher.example/ü", slug: "uni" })
    // Everything the generators treat as cached is looked up once: answers synchronously from now on.
    const ask = (target: string, host: string) => exchange(port, [rawRequest({ target, host })], [false])
    await eventually(async () => (await ask("/hit", HOST)).responses[0]?.status === 302, 5_000)
    for (const slug of [...SLUGS, ...UNKNOWN_SLUGS]) await ask(`/${slug}`, HOST)
    for (const host of UNKNOWN_HOSTS) await ask("/", host)
  }, 120_000)

  afterAll(async () => {
    await stack?.stop()
  })

  it("never dies, never answers 5xx or a malformed response, answers pipelined requests in order", async () => {
    const sequence = fc.array(request, { minLength: 1, maxLength: 5 })
    const delivery = fc.record({
      mode: fc.constantFrom("one write", "per request", "cut anywhere"),
      cuts: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 4 }),
      pause: fc.integer({ min: 0, max: 3 })
    })
    const property = fc.asyncProperty(sequence, delivery, async (requests, { mode, cuts, pause }) => {
      const parts = requests.map(bytesOf)
      const all = Buffer.concat(parts)
      const steps: Array<Buffer | number> = []
      if (mode === "one write") steps.push(all)
      else if (mode === "per request") for (const part of parts) steps.push(part, pause)
      else {
        let from = 0
        for (const at of [...new Set(cuts.map((c) => Math.floor(c * all.length)))].sort((a, b) => a - b)) {
          if (at > from) steps.push(all.subarray(from, at), pause)
          from = Math.max(from, at)
        }
        steps.push(all.subarray(from))
      }
      // What can be answered: up to the first refused request, and up to one that closes the connection.
      let answerable = requests.findIndex((r) => r.refused !== null)
      if (answerable < 0) answerable = requests.length
      const closing = requests.findIndex((r) => r.closes)
      if (closing >= 0 && closing < answerable) answerable = closing + 1
      const heads = requests.slice(0, answerable).map((r) => r.method === "HEAD")
      const result = await exchange(port, steps, heads, { timeoutMs: 15_000, quietMs: 1_500, graceMs: answerable < requests.length ? 100 : undefined })

      if (stack.engine.child.exitCode !== null || stack.engine.child.signalCode !== null) throw new Error("the engine process died")
      if (result.malformed !== null) throw new Error(`malformed response: ${result.malformed}\n${result.received.toString("latin1").slice(0, 2_000)}`)
      result.responses.forEach((response, i) => {
        const problem = checkResponse(requests[i], response, i)
        if (problem !== null) throw new Error(problem)
      })
      const { rest } = parseResponses(result.received, heads)
      if (result.responses.length === heads.length && rest.length > 0) {
        throw new Error(`bytes after the last answer a request could get: ${JSON.stringify(rest.toString("latin1").slice(0, 300))}`)
      }
      // Every request is answered unless something allowed the connection to end early.
      const mayEndEarly = answerable < requests.length ||
        requests.slice(0, Math.max(0, answerable - 1)).some(asynchronous) ||
        parts.slice(0, answerable).some((bytes) => headBlockSize(bytes) > 4_000)
      if (!mayEndEarly && result.responses.length < heads.length) {
        throw new Error(`${result.responses.length} of ${heads.length} answered (closed: ${result.closed}, timed out: ${result.timedOut})`)
      }
    })
    try {
      await fc.assert(property, { numRuns: RUNS, seed: SEED, endOnFailure: true })
    } catch (error) {
      console.error(`engine fuzz failed: replay with RICOCHET_FUZZ_SEED=${SEED}`)
      throw error
    }
    // Still alive and answering.
    const after = await exchange(port, [rawRequest({ target: "/hit", host: HOST })], [false])
    expect(after.responses[0]?.status).toBe(302)
    // A run takes up to about half a second (some wait out a quiet period): npm run test:faults's
    // 2,000 runs need more than the default's ten minutes.
  }, Math.max(600_000, RUNS * 1_000))
})
