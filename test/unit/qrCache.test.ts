import { describe, expect, it } from "vitest"
import { makeQrCache, qrCacheKey } from "../../control/links/qr/qrCache.ts"
import type { QrRenderOptions, RenderedQr } from "../../shared/qr/qrWorkerMessages.ts"

const OPTIONS: QrRenderOptions = { format: "png", size: 512, margin: 4, color: "000000", background: "ffffff" }
const key = (linkId = "lnk_1", text = "https://go.example/a", options: Partial<QrRenderOptions> = {}) => qrCacheKey(linkId, text, { ...OPTIONS, ...options })

describe("qrCacheKey", () => {
  it("is the same for the same link, text and parameters", () => {
    expect(key()).toBe(key())
  })

  it.each<readonly [string, string]>([
    ["another link", key("lnk_2")],
    ["another shortLink (slug or domain edited)", key("lnk_1", "https://go.example/b")],
    ["another format", key(undefined, undefined, { format: "svg" })],
    ["another size", key(undefined, undefined, { size: 513 })],
    ["another margin", key(undefined, undefined, { margin: 0 })],
    ["another color", key(undefined, undefined, { color: "000001" })],
    ["another background", key(undefined, undefined, { background: "fffffe" })]
  ])("differs for %s", (_what, other) => {
    expect(other).not.toBe(key())
  })

  it("cannot be made equal by moving text between fields", () => {
    expect(qrCacheKey("a,b", "c", OPTIONS)).not.toBe(qrCacheKey("a", "b,c", OPTIONS))
    expect(qrCacheKey('a","b', "c", OPTIONS)).not.toBe(qrCacheKey("a", 'b","c', OPTIONS))
  })
})

describe("the QR cache", () => {
  const png = (bytes: number): RenderedQr => ({ format: "png", body: new Uint8Array(bytes) })

  it("keeps at most its number of entries, the least recently used leaving first", () => {
    const cache = makeQrCache(2, 1_000_000)
    cache.set("a", png(10))
    cache.set("b", png(10))
    cache.get("a")
    cache.set("c", png(10))
    expect([...cache.keys()].sort()).toEqual(["a", "c"])
  })

  it("keeps at most its bytes", () => {
    const cache = makeQrCache(100, 1_000)
    for (const name of ["a", "b", "c"]) cache.set(name, png(400))
    expect(cache.calculatedSize).toBeLessThanOrEqual(1_000)
    expect(cache.has("a")).toBe(false)
    expect(cache.has("c")).toBe(true)
    cache.set("svg", { format: "svg", body: "x".repeat(300) })
    expect(cache.calculatedSize).toBeLessThanOrEqual(1_000)
  })
})
