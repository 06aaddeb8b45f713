import jsQRModule from "jsqr"
import { PNG } from "pngjs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BACKENDS, type Backend, startBackend } from "../support/backends.ts"
import { apiClient } from "../support/processes.ts"

// jsqr is CommonJS with a `default` export in its types: under NodeNext the callable is `.default`.
const jsQR = (jsQRModule as unknown as { default: typeof jsQRModule.default }).default ?? jsQRModule

const decodePng = (bytes: Buffer) => {
  const png = PNG.sync.read(bytes)
  return { width: png.width, height: png.height, text: jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data }
}

/** GET /v1/links/{id}/qr: a code readers can scan back to the link's shortLink. */
describe.each(BACKENDS)("QR codes (%s)", (kind) => {
  let backend: Backend
  let key: string
  let link: { id: string; shortLink: string }

  const get = (path: string) => fetch(`${backend.control.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } })

  beforeAll(async () => {
    backend = await startBackend(kind)
    key = backend.control.firstKey!
    const res = await apiClient(backend.control.baseUrl, key).post("/v1/links", { url: "https://example.com/qr", slug: "qr-code" })
    expect(res.status).toBe(201)
    link = res.body
  }, 180_000)

  afterAll(async () => {
    await backend?.stop()
  })

  it("answers a PNG that decodes to the shortLink, at the size asked", async () => {
    for (const [query, size] of [["", 512], ["?format=png&size=200&margin=2&color=%23123456&background=fafafa", 200]] as const) {
      const res = await get(`/v1/links/${link.id}/qr${query}`)
      expect(res.status).toBe(200)
      expect(res.headers.get("content-type")).toBe("image/png")
      expect(res.headers.get("ratelimit-remaining")).toMatch(/^\d+$/)
      const decoded = decodePng(Buffer.from(await res.arrayBuffer()))
      expect(decoded).toEqual({ width: size, height: size, text: link.shortLink })
    }
  })

  it("answers an SVG with the colors asked", async () => {
    const res = await get(`/v1/links/${link.id}/qr?format=svg&color=004400`)
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toMatch(/^image\/svg\+xml/)
    const svg = await res.text()
    expect(svg).toMatch(/^<svg /)
    expect(svg).toContain("#004400")
    expect(svg).toContain('width="512"')
  })

  it("refuses bad parameters with 422 and an unknown link with 404", async () => {
    for (const query of ["format=gif", "size=10", "size=5000", "size=abc", "margin=-1", "margin=17", "color=red", "color=fff", "color=ffffff", "color=777777&background=888888"]) {
      const res = await get(`/v1/links/${link.id}/qr?${query}`)
      const body = await res.json()
      expect({ query, status: res.status, code: body.error?.code }).toEqual({ query, status: 422, code: "unprocessable_entity" })
    }
    const missing = await get("/v1/links/lnk_missing/qr")
    expect(missing.status).toBe(404)
    expect((await missing.json()).error.code).toBe("not_found")
  })
})
