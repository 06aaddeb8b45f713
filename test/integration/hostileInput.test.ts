import { connect } from "node:net"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { writeClicksParquet } from "../../shared/clicks/clickCsv.ts"
import { openDuckDb, partitionOf } from "../../shared/clicks/parquet.ts"
import { clickRecord } from "../support/clickRecord.ts"
import { errorBodyProblem } from "../support/errorBody.ts"
import {
  type ControlHandle,
  createTestDatabase,
  createWorkspace,
  removeDir,
  startControl,
  tempDir
} from "../support/processes.ts"

/**
 * Requests a hostile key holder (or anyone) can send control, each of which once answered 500,
 * an empty body, or took the process down (issue 10, items 1 to 4 and the control parts of 11).
 * One control process on PostgreSQL with a bounded heap, so a request that would eat the
 * machine's memory kills it quickly instead; every test ends by checking that it still answers.
 */

interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  readonly body: any
}

const enc = encodeURIComponent

describe("hostile input to control", () => {
  let ctl: ControlHandle
  let dir: string
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  /** Pro workspace for links, tags, folders and domains; business one for analytics (its own allowance). */
  let key: string
  let analyticsKey: string
  let analyticsDomain: string

  const send = async (
    method: string,
    target: string,
    init: { body?: string | Uint8Array; type?: string; key?: string | null; headers?: Record<string, string> } = {}
  ): Promise<Answer> => {
    const auth = init.key === null ? undefined : init.key ?? key
    const headers: Record<string, string> = { ...(auth ? { authorization: `Bearer ${auth}` } : {}), ...init.headers }
    if (init.type !== undefined) headers["content-type"] = init.type
    const res = await fetch(`${ctl.baseUrl}${target}`, { method, headers, body: init.body as BodyInit | undefined })
    const text = await res.text()
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      body = text
    }
    return { status: res.status, headers: res.headers, text, body }
  }
  const json = (method: string, target: string, value: unknown) =>
    send(method, target, { body: JSON.stringify(value), type: "application/json" })
  const form = (method: string, target: string, body: string, type = "application/x-www-form-urlencoded") =>
    send(method, target, { body, type })

  /** The spec's error body, with the status and code given (and an issue at `issuePath`). */
  const expectRefusal = (answer: Answer, status: number, code: string, issuePath?: ReadonlyArray<string | number>) => {
    const where = `${answer.status} ${answer.text.slice(0, 300)}`
    expect({ status: answer.status, code: answer.body?.error?.code }, where).toEqual({ status, code })
    expect(errorBodyProblem(answer), where).toBeUndefined()
    if (issuePath !== undefined) {
      expect(answer.body.error.issues, where).toEqual(expect.arrayContaining([expect.objectContaining({ path: issuePath })]))
    }
    return answer.body.error as { message: string; issues?: Array<{ path: Array<string | number>; code: string; message: string }> }
  }

  const stillServing = async () => {
    expect(ctl.child.exitCode, ctl.output().slice(-2000)).toBeNull()
    expect((await send("GET", "/v1/tags")).status).toBe(200)
  }

  beforeAll(async () => {
    dir = await tempDir("ricochet-hostile-")
    db = await createTestDatabase()
    const env = {
      DATABASE_URL: db.url,
      NATS_URL: undefined,
      RICOCHET_DATA_DIR: dir,
      RICOCHET_SHORT_DOMAIN: "hostile.test",
      // A heap bound well under the machine's: a request that grows the heap without limit
      // ends the process within seconds instead of slowing every other test.
      NODE_OPTIONS: "--max-old-space-size=768"
    }
    ctl = await startControl(env, true)
    const [pro, business] = await Promise.all([createWorkspace(ctl.env, "pro", "Hostile"), createWorkspace(ctl.env, "business", "Counted")])
    key = pro.apiKey
    analyticsKey = business.apiKey
    analyticsDomain = business.domain
    // Clicks in the window, so analytics questions reach DuckDB.
    const duck = await openDuckDb(1)
    try {
      const at = Date.now() - 30 * 60_000
      const clicks = [0, 1, 2].map((i) =>
        clickRecord({ timestamp: at + i, workspaceId: business.workspace.id, domain: business.domain, browser: "Chrome", os: "Windows" }))
      await writeClicksParquet(duck, clicks, path.join(dir, "clicks", partitionOf(at).dir, "hostile-1.parquet"))
    } finally {
      duck.closeSync()
    }
  })

  afterAll(async () => {
    await ctl?.stop()
    await db?.drop()
    if (dir) await removeDir(dir)
  })

  describe("nesting and counts (item 1)", () => {
    it("refuses a form key nested 100,000 levels (300 KB) with a 400 and goes on serving", async () => {
      const body = `url=${enc("https://a.com")}&utm${"[a]".repeat(100_000)}=1`
      expect(body.length).toBeLessThan(1024 * 1024)
      expectRefusal(await form("POST", "/v1/links", body), 400, "bad_request")
      await stillServing()
    })

    it("refuses a form key nested 10,000 levels, in a body and in a query string, with a 400 and not a 500", async () => {
      expectRefusal(await form("POST", "/v1/links", `url=${enc("https://a.com")}&utm${"[a]".repeat(10_000)}=1`), 400, "bad_request")
      expectRefusal(await multipart("PATCH", "/v1/tags/tag_x", [[`name${"[a]".repeat(10_000)}`, "x"]]), 400, "bad_request")
      expectRefusal(await send("GET", `/v1/links?tagIds${"[a]".repeat(1000)}=x`), 400, "bad_request")
      await stillServing()
    })

    it("refuses JSON nested 500,000 levels (1 MB) with a 400", async () => {
      const depth = 500_000
      const body = `{"url":"https://a.com","utm":${"[".repeat(depth)}${"]".repeat(depth)}}`
      expectRefusal(await send("POST", "/v1/links", { body, type: "application/json" }), 400, "bad_request")
      expectRefusal(await json("POST", "/v1/links", { url: "https://a.com", utm: { a: { b: { c: { d: { e: { f: {} } } } } } } }), 400, "bad_request")
      await stillServing()
    })

    it("refuses more than 1,000 form fields, arrays past 300 items and JSON of more than 10,000 values", async () => {
      const fields = Array.from({ length: 1001 }, (_, i) => `f${i}=1`).join("&")
      expectRefusal(await form("POST", "/v1/tags", fields), 400, "bad_request")
      expectRefusal(await form("POST", "/v1/links", `url=x&tagIds[300]=a`), 400, "bad_request")
      expectRefusal(await form("POST", "/v1/links", `url=x&${Array.from({ length: 301 }, () => "tagIds=a").join("&")}`), 400, "bad_request")
      expectRefusal(await json("POST", "/v1/links", { url: "https://a.com", tagIds: Array.from({ length: 10_001 }, () => "x") }), 400, "bad_request")
      // Up to the bounds, validation speaks (tagIds has at most 100 items).
      expectRefusal(await json("POST", "/v1/links", { url: "https://a.com", tagIds: Array.from({ length: 5000 }, () => "x") }), 422, "unprocessable_entity", ["tagIds"])
      await stillServing()
    })

    it("refuses a chunked body (no Content-Length) once it passes 1 MiB", async () => {
      const chunk = new TextEncoder().encode(`"${"x".repeat(64 * 1024)}",`)
      let sent = 0
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent === 0) controller.enqueue(new TextEncoder().encode('{"url":"https://a.com","tagIds":['))
          if (sent++ < 48) controller.enqueue(chunk)
          else controller.close()
        }
      })
      const res = await fetch(`${ctl.baseUrl}/v1/links`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body,
        duplex: "half"
      } as RequestInit)
      const answer = { status: res.status, headers: res.headers, text: await res.text() }
      expectRefusal({ ...answer, body: JSON.parse(answer.text) }, 400, "bad_request")
      expect(JSON.parse(answer.text).error.message).toMatch(/larger than 1048576 bytes/)
      await stillServing()
    })

    it("still takes 250 geo rules in bracket form, and its deepest shapes", async () => {
      const countries = Array.from({ length: 250 }, (_, i) => String.fromCharCode(65 + Math.floor(i / 26), 65 + (i % 26)))
      const rules = countries.map((c, i) => `geoRules[${i}][country]=${c}&geoRules[${i}][url]=${enc(`https://example.com/${c}`)}`).join("&")
      const created = await form("POST", "/v1/links", `url=${enc("https://example.com/geo")}&${rules}` +
        `&abTest[variants][0][url]=${enc("https://example.com/geo")}&abTest[variants][0][weight]=50` +
        `&abTest[variants][1][url]=${enc("https://example.com/b")}&abTest[variants][1][weight]=50&abTest[endsAt]=`)
      expect(created.status, created.text.slice(0, 300)).toBe(201)
      expect(created.body.geoRules).toHaveLength(250)
      expect(created.body.geoRules[249]).toEqual({ country: countries[249], url: `https://example.com/${countries[249]}` })
      expect(created.body.abTest.variants).toHaveLength(2)
    })
  })

  describe("NUL and text that is not Unicode (item 2)", () => {
    it("refuses NUL in JSON and form bodies with a 422 at the field", async () => {
      expectRefusal(await json("POST", "/v1/links", { url: "https://a.com", title: "\u0000x" }), 422, "unprocessable_entity", ["title"])
      expectRefusal(await json("POST", "/v1/tags", { name: "a\u0000" }), 422, "unprocessable_entity", ["name"])
      expectRefusal(await json("POST", "/v1/folders", { name: "\u0000" }), 422, "unprocessable_entity", ["name"])
      expectRefusal(await form("POST", "/v1/links", `url=${enc("https://a.com")}&title=%00x`), 422, "unprocessable_entity", ["title"])
      expectRefusal(await form("POST", "/v1/links", `url=${enc("https://a.com")}&utm[source]=a%00`), 422, "unprocessable_entity", ["utm", "source"])
      expectRefusal(await multipart("POST", "/v1/tags", [["name", "x\u0000"]]), 422, "unprocessable_entity", ["name"])
      const issue = expectRefusal(await json("POST", "/v1/links", { url: "https://a.com", password: "\u0000" }), 422, "unprocessable_entity", ["password"])
      expect(issue.issues![0]).toEqual({ path: ["password"], code: "invalid_value", message: "Must not contain the NUL character" })
      await stillServing()
    })

    it("refuses NUL in path ids with a 422", async () => {
      for (const [method, target] of [
        ["GET", "/v1/links/lnk_%00"], ["PATCH", "/v1/links/%00"], ["DELETE", "/v1/links/%00"],
        ["PATCH", "/v1/tags/%00"], ["DELETE", "/v1/tags/%00"], ["PATCH", "/v1/folders/%00"], ["DELETE", "/v1/folders/%00"],
        ["GET", "/v1/domains/%00"], ["PATCH", "/v1/domains/%00"], ["DELETE", "/v1/domains/%00"], ["POST", "/v1/domains/%00/verify"]
      ] as const) {
        expectRefusal(await send(method, target), 422, "unprocessable_entity", ["id"])
      }
      await stillServing()
    })

    it("refuses NUL in query values", async () => {
      expectRefusal(await send("GET", "/v1/links?search=%00"), 422, "unprocessable_entity", ["search"])
      expectRefusal(await send("GET", "/v1/links?domain=a%00"), 422, "unprocessable_entity", ["domain"])
      expectRefusal(await send("GET", "/v1/links?folderId=%00"), 422, "unprocessable_entity", ["folderId"])
      expectRefusal(await send("GET", "/v1/links?tagIds=a,%00"), 422, "unprocessable_entity", ["tagIds"])
      expectRefusal(await send("GET", "/v1/links/info?domain=x&slug=%00"), 422, "unprocessable_entity", ["slug"])
      expectRefusal(await send("GET", "/v1/links/info?domain=%00&slug=x"), 422, "unprocessable_entity", ["domain"])
      await stillServing()
    })

    it("refuses NUL in every analytics parameter, and treats quotes as plain text", async () => {
      const ask = (query: string) => send("GET", `/v1/analytics?${query}`, { key: analyticsKey })
      for (const name of ["domain", "folderId", "linkId", "tagIds", "browser", "os", "referer", "utmSource", "utmMedium", "utmCampaign"]) {
        expectRefusal(await ask(`${name}=x%00y`), 422, "unprocessable_entity", [name])
      }
      const all = await ask("interval=24h")
      expect(all.status, all.text).toBe(200)
      expect(all.body.data).toEqual({ clicks: 3, people: 3, agents: 0 })
      const quoted = await ask(`browser=${enc("O'Reilly\\")}&os=${enc("'; DROP TABLE x; --")}&referer=${enc("a'b")}`)
      expect(quoted.status, quoted.text).toBe(200)
      expect(quoted.body.data).toEqual({ clicks: 0, people: 0, agents: 0 })
      const chrome = await ask(`browser=chrome&domain=${enc(analyticsDomain)}&groupBy=browsers`)
      expect(chrome.status, chrome.text).toBe(200)
      expect(chrome.body.data).toEqual([{ browser: "Chrome", clicks: 3, people: 3, agents: 0 }])
    })

    it("refuses lone surrogates and bodies, queries and paths that are not UTF-8", async () => {
      const lone = await send("POST", "/v1/tags", { body: '{"name":"a\\ud800"}', type: "application/json" })
      expectRefusal(lone, 422, "unprocessable_entity", ["name"])
      expectRefusal(await send("POST", "/v1/tags", { body: new Uint8Array([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]), type: "application/json" }), 400, "bad_request")
      expectRefusal(await form("POST", "/v1/tags", "name=%ff"), 400, "bad_request")
      expectRefusal(await send("GET", "/v1/links?search=%ff"), 400, "bad_request")
      expectRefusal(await send("GET", "/v1/links/%ED%A0%80"), 400, "bad_request")
      // A percent sign not followed by two hex digits is taken literally, as browsers and URLSearchParams do.
      const literal = await form("POST", "/v1/tags", "name=100%")
      expect(literal.status, literal.text).toBe(201)
      expect(literal.body.name).toBe("100%")
      await stillServing()
    })
  })

  describe("cursors (item 3)", () => {
    const cursor = (value: unknown) => enc(Buffer.from(JSON.stringify(value)).toString("base64url"))

    it("refuses tampered cursors with 422 invalid_cursor", async () => {
      for (const value of [
        ["2026-11-23 17:11:04.41714+99", "x"],
        ["2026-11-23 17:11:04.41714+16", "lnk_x"],
        ["2026-11-23 17:11:04+15:60", "lnk_x"],
        ["2026-11-23 24:00:00+00", "lnk_x"],
        ["0000-01-01 00:00:00+00", "lnk_x"],
        ["2026-11-23 17:11:04+00", "lnk_\u0000"],
        ["2026-11-23 17:11:04+00", "x".repeat(65)],
        ["2026-11-23 17:11:04+00", "lnk_\ud800"]
      ]) {
        const error = expectRefusal(await send("GET", `/v1/links?cursor=${cursor(value)}`), 422, "unprocessable_entity", ["cursor"])
        expect(error.issues!.find((i) => i.path[0] === "cursor")!.code).toBe("invalid_cursor")
      }
    })

    it("still takes cursors of the shape PostgreSQL prints, whatever the offset", async () => {
      for (const at of ["2026-11-23 17:11:04.41714+00", "2026-11-23 17:11:04+05:30", "2026-11-23 17:11:04.5-09:30:15", "1999-12-31 23:59:59.999999+14"]) {
        const res = await send("GET", `/v1/links?cursor=${cursor([at, "lnk_x"])}`)
        expect(res.status, `${at}: ${res.text}`).toBe(200)
      }
    })
  })

  describe("answers that had no error body (item 4)", () => {
    it("answers ids that are not percent-encoded UTF-8 with a 400 and the error body", async () => {
      for (const [method, target] of [
        ["GET", "/v1/links/%ff"], ["PATCH", "/v1/links/%ff"], ["DELETE", "/v1/links/%ff"], ["PATCH", "/v1/tags/%ff"],
        ["DELETE", "/v1/folders/%ff"], ["GET", "/v1/domains/%ff"], ["POST", "/v1/domains/%ff/verify"], ["GET", "/v1/links/%zz"],
        ["GET", "/v1/%ff"]
      ] as const) {
        expectRefusal(await send(method, target), 400, "bad_request")
      }
      // Without a key the answer is still the 401 every unauthenticated call gets.
      expectRefusal(await send("GET", "/v1/links/%ff", { key: null }), 401, "unauthorized")
      await stillServing()
    })

    it("answers ids longer than any id with a 422, not an empty 404", async () => {
      expectRefusal(await send("GET", `/v1/links/${"a".repeat(300)}`), 422, "unprocessable_entity", ["id"])
      expectRefusal(await send("DELETE", `/v1/tags/${"a".repeat(300)}`), 422, "unprocessable_entity", ["id"])
    })

    it("answers a request line over Node's header limit with a 431 and the error body", async () => {
      const answer = await send("GET", `/v1/links?search=${"a".repeat(20_000)}`)
      expect(answer.status).toBe(431)
      expect(answer.body.error.code).toBe("bad_request")
      // Node refuses it before any handler runs: not counted, so no rate-limit headers.
      expect(errorBodyProblem(answer, { rateLimitHeaders: false })).toBeUndefined()
      await stillServing()
    })

    it("answers a request Node cannot parse with a 400 and the error body", async () => {
      const raw = await rawRequest(`GET /v1/links HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n`)
      expect(raw).toMatch(/^HTTP\/1\.1 400 /)
      expect(raw).toMatch(/\r\ncontent-type: application\/json/i)
      expect(raw).toMatch(/\r\nconnection: close/i)
      expect(JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4)).error.code).toBe("bad_request")
      await stillServing()
    })
  })

  describe("destinations and charsets (item 11)", () => {
    it("trims whitespace around destination URLs, in links and domains", async () => {
      const created = await json("POST", "/v1/links", {
        url: "  https://example.com/trailing \n",
        geoRules: [{ country: "US", url: "https://example.com/us\t" }],
        expiredUrl: " https://example.com/expired ",
        ogImageUrl: "https://cdn.example.com/x.png "
      })
      expect(created.status, created.text).toBe(201)
      expect(created.body).toMatchObject({
        url: "https://example.com/trailing",
        geoRules: [{ country: "US", url: "https://example.com/us" }],
        expiredUrl: "https://example.com/expired",
        ogImageUrl: "https://cdn.example.com/x.png"
      })
      const patched = await form("PATCH", `/v1/links/${created.body.id}`, `url=${enc("https://example.com/form ")}`)
      expect(patched.body.url).toBe("https://example.com/form")
      const domains = await send("GET", "/v1/domains")
      const primary = domains.body.data[0].id
      const domain = await json("PATCH", `/v1/domains/${primary}`, { notFoundUrl: "https://example.com/404 " })
      // Only admins may change a domain; the first key of a workspace is its admin's.
      expect(domain.status, domain.text).toBe(200)
      expect(domain.body.notFoundUrl).toBe("https://example.com/404")
      // A URL that is only whitespace is still refused.
      expectRefusal(await json("POST", "/v1/links", { url: "   " }), 422, "unprocessable_entity", ["url"])
    })

    it("reads a body in its declared charset", async () => {
      const value = { url: "https://example.com/ü", title: "Grüße € 😀" }
      const utf16le = Buffer.from(JSON.stringify(value), "utf16le")
      const le = await send("POST", "/v1/links", { body: utf16le, type: "application/json; charset=utf-16le" })
      expect(le.status, le.text).toBe(201)
      expect(le.body.title).toBe(value.title)
      // utf-16 without an order: the byte-order mark decides.
      const be = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(utf16le).swap16()])
      const sniffed = await send("POST", "/v1/links", { body: be, type: "application/json; charset=UTF-16" })
      expect(sniffed.status, sniffed.text).toBe(201)
      expect(sniffed.body.title).toBe(value.title)
      const latin1 = await form("POST", "/v1/tags", "name=Gr%FC%DFe", "application/x-www-form-urlencoded; charset=ISO-8859-1")
      expect(latin1.status, latin1.text).toBe(201)
      expect(latin1.body.name).toBe("Grüße")
      const utf8 = await form("POST", "/v1/tags", "name=Gr%C3%BC%C3%9Fe+2", "application/x-www-form-urlencoded; charset=utf-8")
      expect(utf8.body.name).toBe("Grüße 2")
    })

    it("refuses a charset it does not know, and multipart bodies declared in anything but UTF-8", async () => {
      expectRefusal(await send("POST", "/v1/tags", { body: '{"name":"x"}', type: "application/json; charset=klingon" }), 400, "bad_request")
      expectRefusal(await form("POST", "/v1/tags", "name=y", "application/x-www-form-urlencoded; charset=x-unknown"), 400, "bad_request")
      const data = new FormData()
      data.set("name", "z")
      const body = new Uint8Array(await new Response(data).arrayBuffer())
      const type = new Response(data).headers.get("content-type")!
      expectRefusal(await send("POST", "/v1/tags", { body, type: `${type}; charset=utf-16` }), 400, "bad_request")
    })
  })

  /** A multipart body of the given fields (FormData would refuse nothing we want to send). */
  async function multipart(method: string, target: string, fields: ReadonlyArray<readonly [string, string]>): Promise<Answer> {
    const data = new FormData()
    for (const [name, value] of fields) data.append(name, value)
    const response = new Response(data)
    const body = new Uint8Array(await response.arrayBuffer())
    return send(method, target, { body, type: response.headers.get("content-type")! })
  }

  /** Writes raw bytes to control and returns everything it answers before closing. */
  function rawRequest(text: string): Promise<string> {
    const { port, hostname } = new URL(ctl.baseUrl)
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => socket.end(text))
      let received = ""
      socket.setEncoding("latin1")
      socket.on("data", (chunk) => (received += chunk))
      socket.on("end", () => resolve(received))
      socket.on("error", reject)
      socket.setTimeout(10_000, () => {
        socket.destroy()
        resolve(received)
      })
    })
  }
})
