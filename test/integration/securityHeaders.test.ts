import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SVG_POLICY } from "../../control/links/qr/qrResponse.ts"
import { exchange, headerOf, rawRequest } from "../support/rawHttp.ts"
import { apiClient, type ControlHandle, removeDir, startControl, tempDir } from "../support/processes.ts"

/**
 * Every kind of answer under /v1 carries `X-Content-Type-Options: nosniff` (JSON, errors, images,
 * CSV, the OpenAPI document, the reference page, answers made before the router); the SVG QR code
 * a policy without script; the reference page a policy of its own and no framing.
 */
describe("security headers of /v1 answers", () => {
  let ctl: ControlHandle
  let dir: string
  let key: string
  let linkId: string

  const get = (path: string, headers: Record<string, string> = { authorization: `Bearer ${key}` }) =>
    fetch(`${ctl.baseUrl}${path}`, { headers })

  beforeAll(async () => {
    dir = await tempDir()
    ctl = await startControl({ RICOCHET_DATA_DIR: dir, NATS_URL: undefined }, true)
    key = ctl.firstKey!
    const link = await apiClient(ctl.baseUrl, key).post("/v1/links", { url: "https://example.com/headers", slug: "headers" })
    expect(link.status).toBe(201)
    linkId = link.body.id
  }, 180_000)

  afterAll(async () => {
    await ctl?.stop()
    await removeDir(dir)
  })

  it.each<readonly [string, () => string, number, RegExp]>([
    ["a listing", () => "/v1/links", 200, /^application\/json/],
    ["a link", () => `/v1/links/${linkId}`, 200, /^application\/json/],
    ["a PNG QR code", () => `/v1/links/${linkId}/qr`, 200, /^image\/png/],
    ["an SVG QR code", () => `/v1/links/${linkId}/qr?format=svg`, 200, /^image\/svg\+xml/],
    ["the CSV export", () => "/v1/links/export", 200, /^text\/csv/],
    ["the OpenAPI document", () => "/v1/openapi.json", 200, /^application\/json/],
    ["the reference page", () => "/v1/docs", 200, /^text\/html/],
    ["an unknown link (404)", () => "/v1/links/lnk_missing", 404, /^application\/json/],
    ["an unknown path (404)", () => "/v1/nothing-here", 404, /^application\/json/],
    ["a bad query (422)", () => "/v1/links?limit=0", 422, /^application\/json/],
    ["a bad QR parameter (422)", () => `/v1/links/${linkId}/qr?size=5000`, 422, /^application\/json/],
    ["a path that is not UTF-8 (400)", () => "/v1/links/%ff", 400, /^application\/json/]
  ])("%s: nosniff", async (_what, path, status, type) => {
    const res = await get(path())
    expect(res.status).toBe(status)
    expect(res.headers.get("content-type")).toMatch(type)
    expect(res.headers.get("x-content-type-options")).toBe("nosniff")
    await res.arrayBuffer()
  })

  it("a request without a key (401): nosniff", async () => {
    const res = await get("/v1/links", {})
    expect(res.status).toBe(401)
    expect(res.headers.get("x-content-type-options")).toBe("nosniff")
  })

  it("a request Node's parser refuses (431): nosniff", async () => {
    const request = rawRequest({ target: "/v1/links", host: "127.0.0.1", headers: [["X-Big", "a".repeat(20_000)]] })
    const { responses } = await exchange(Number(new URL(ctl.baseUrl).port), [request], [false])
    expect(responses[0].status).toBe(431)
    expect(headerOf(responses[0], "x-content-type-options")).toBe("nosniff")
  })

  it("the SVG QR code: a policy that runs no script and loads nothing", async () => {
    const res = await get(`/v1/links/${linkId}/qr?format=svg`)
    const policy = res.headers.get("content-security-policy")
    expect(policy).toBe(SVG_POLICY)
    expect(policy).toMatch(/default-src 'none'/)
    expect(policy).toMatch(/\bsandbox\b/)
    expect(policy).not.toMatch(/script-src/)
  })

  it("the reference page: its inline scripts by hash, no framing", async () => {
    const res = await get("/v1/docs")
    const html = await res.text()
    const policy = res.headers.get("content-security-policy")!
    expect(policy).toMatch(/^default-src 'none'; /)
    expect(policy.match(/'sha256-[A-Za-z0-9+/=]+'/g)).toHaveLength((html.match(/<script>/g) ?? []).length)
    expect(policy).not.toMatch(/unsafe-eval|script-src[^;]*unsafe-inline/)
    expect(policy).toContain("frame-ancestors 'none'")
    expect(res.headers.get("x-frame-options")).toBe("DENY")
  })

  it("a QR code refused while the render queue is full (503): nosniff and Retry-After", async () => {
    // Bursts of codes with colors of their own (nothing cached or shared) until one is refused:
    // a workspace holds at most a quarter of the queue, and a 2048-pixel render takes a while.
    let refused: Response | undefined
    for (let burst = 0; burst < 5 && refused === undefined; burst++) {
      const answers = await Promise.all(Array.from({ length: 8 }, async (_, i) => {
        const res = await get(`/v1/links/${linkId}/qr?size=2048&color=${(burst * 8 + i).toString(16).padStart(6, "0")}`)
        await res.arrayBuffer()
        return res
      }))
      refused = answers.find((res) => res.status === 503)
    }
    expect(refused?.status).toBe(503)
    expect(refused!.headers.get("retry-after")).toMatch(/^\d+$/)
    expect(refused!.headers.get("x-content-type-options")).toBe("nosniff")
  })

  // Last: it uses up this address's anonymous allowance.
  it("a refused request past the rate limit (429): nosniff", async () => {
    let res: Response | undefined
    for (let i = 0; i < 40; i++) {
      res = await get("/v1/openapi.json", {})
      await res.arrayBuffer()
      if (res.status === 429) break
    }
    expect(res!.status).toBe(429)
    expect(res!.headers.get("retry-after")).toMatch(/^\d+$/)
    expect(res!.headers.get("x-content-type-options")).toBe("nosniff")
  })
})
