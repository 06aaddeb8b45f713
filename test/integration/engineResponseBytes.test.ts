import uWS from "uWebSockets.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { NO_STORE, RedirectHeads, safeLocation } from "../../engine/http/redirectHeads.ts"
import { isLoopback } from "../../engine/http/incoming.ts"
import { addressText, socketAddress } from "../../engine/http/socketAddress.ts"
import { REDIRECT_REFERRER_POLICY } from "../../engine/pages/securityHeaders.ts"
import { freePort } from "../support/processes.ts"
import { exchange, rawRequest } from "../support/rawHttp.ts"

/**
 * What the engine's hot path writes and reads through uWS.js in fewer calls (engine/http/
 * redirectHeads.ts, socketAddress.ts) against what the calls they replace give, on real sockets
 * of uWS.js itself: a redirect's head in one writeStatus is byte for byte the writeStatus and
 * three writeHeader calls it was; the address read as binary is the text uWS.js gives.
 */

const LOCATION = "https://de.example-shop.com/produkte/fr%C3%BChling?utm_source=newsletter&utm_medium=email"
const decoder = new TextDecoder()

/** The head RedirectHeads makes for a destination written twice. */
const madeHead = (status: number, statusLine: string, location: string): Uint8Array => {
  const heads = new RedirectHeads()
  heads.written(status, statusLine, location)
  heads.written(status, statusLine, location)
  return heads.get(status, location)!
}

describe("the engine's response and address bytes through uWS.js", () => {
  let app: uWS.TemplatedApp
  const listening: Array<uWS.us_listen_socket> = []
  let port4: number
  let port6: number

  beforeAll(async () => {
    uWS._cfg("silent")
    app = uWS.App()
      .get("/separate", (res) => {
        res.writeStatus("302 Found").writeHeader("location", LOCATION).writeHeader("cache-control", NO_STORE)
          .writeHeader("referrer-policy", REDIRECT_REFERRER_POLICY).end()
      })
      .get("/whole", (res) => {
        res.writeStatus(madeHead(302, "302 Found", LOCATION)).end()
      })
      .head("/separate", (res) => {
        res.writeStatus("301 Moved Permanently").writeHeader("location", LOCATION).writeHeader("cache-control", NO_STORE)
          .writeHeader("referrer-policy", REDIRECT_REFERRER_POLICY).writeHeader("content-length", "0").endWithoutBody()
      })
      .head("/whole", (res) => {
        res.writeStatus(madeHead(301, "301 Moved Permanently", LOCATION)).writeHeader("content-length", "0").endWithoutBody()
      })
      .get("/address", (res) => {
        res.end(JSON.stringify([socketAddress(res), decoder.decode(res.getRemoteAddressAsText())]))
      })
    const listen = (host: string, port: number) =>
      new Promise<void>((resolve, reject) => app.listen(host, port, (token) => (token ? (listening.push(token), resolve()) : reject(new Error(`no ${host}:${port}`)))))
    port4 = await freePort()
    await listen("127.0.0.1", port4)
    port6 = await freePort()
    await listen("::", port6)
  })

  afterAll(() => {
    for (const token of listening) uWS.us_listen_socket_close(token)
    ;(app as unknown as { close(): void }).close()
  })

  /** The raw answer, its Date line taken out (it may tick between two answers). */
  const raw = async (method: string, target: string) => {
    const result = await exchange(port4, [rawRequest({ method, target, host: "x.test" })], [method === "HEAD"])
    return result.received.toString("latin1").replace(/^date: [^\r]*\r\n/im, "")
  }

  it("a redirect's head in one writeStatus is what writeStatus and three writeHeader calls write", async () => {
    const separate = await raw("GET", "/separate")
    expect(separate).toMatch(/^HTTP\/1\.1 302 Found\r\nlocation: https:/)
    expect(await raw("GET", "/whole")).toBe(separate)
    const separateHead = await raw("HEAD", "/separate")
    expect(separateHead).toMatch(/^HTTP\/1\.1 301 Moved Permanently\r\n/)
    expect(await raw("HEAD", "/whole")).toBe(separateHead)
  })

  it("a head is made on a destination's second visit, for its status; a location the engine will not send is refused", () => {
    const heads = new RedirectHeads()
    heads.written(302, "302 Found", LOCATION)
    expect(heads.get(302, LOCATION)).toBeUndefined()
    heads.written(302, "302 Found", LOCATION)
    const made = heads.get(302, LOCATION)
    expect(made).toBeDefined()
    expect(heads.get(302, LOCATION)).toBe(made)
    expect(heads.get(307, LOCATION)).toBeUndefined()
    expect(heads.get(302, `${LOCATION}&x=1`)).toBeUndefined()
    expect(safeLocation(LOCATION)).toBe(true)
    expect(safeLocation("https://example.com/\r\nset-cookie: a=b")).toBe(false)
    expect(safeLocation("javascript://alert(1)")).toBe(false)
    expect(safeLocation("https://example.com/ä")).toBe(false)
  })

  it("the address read as binary is the visitor's address as text, on IPv4 and dual-stack IPv6 sockets", async () => {
    const ask = async (host: string, port: number) => (await (await fetch(`http://${host}:${port}/address`)).json()) as [string, string]
    // An IPv4 visitor of the dual-stack listener is its IPv4 address (uWS.js's text is eight
    // full groups, which the country database does not find); ::1 is ::1 (the status page's
    // loopback check).
    for (const [host, port, expected] of [["127.0.0.1", port4, "127.0.0.1"], ["127.0.0.1", port6, "127.0.0.1"], ["[::1]", port6, "::1"]] as const) {
      const [read, text] = await ask(host, port)
      expect(read, `${host} on port ${port} (uWS.js: ${text})`).toBe(expected)
      expect(isLoopback(read)).toBe(true)
    }
    // Asked again: the same text (an IPv4 address is remembered).
    const [again] = await ask("127.0.0.1", port4)
    expect(again).toBe("127.0.0.1")
  })

  it.each([
    [[203, 0, 113, 254], "203.0.113.254"],
    [[0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0xab, 0xcd, 0, 0x0e], "2001:db8::abcd:e"],
    [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0x7f, 0, 0, 1], "127.0.0.1"],
    [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 8, 8, 8, 8], "8.8.8.8"],
    [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], "::1"],
    [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], "::"],
    [[0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1], "2001:db8:0:1::1"],
    [[0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1], "2001:db8::1:0:0:1"],
    [[0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1], "2001:db8:1:1:1:1:1:1"],
    [[0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1], "2001:db8:0:1:1:1:1:1"],
    [[0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55], "fe80::211:22ff:fe33:4455"],
    [[], ""]
  ])("address bytes %j are %s (RFC 5952)", (bytes, text) => {
    expect(addressText(new Uint8Array(bytes))).toBe(text)
  })
})
