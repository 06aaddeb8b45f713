import { mkdir, mkdtemp, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { acceptedEncodings, type Asset, assetFor, cacheControl, CONTENT_SECURITY_POLICY, loadAssets, representationOf } from "../../control/dashboard/assets.ts"
import { removeDir } from "../support/processes.ts"

const asset = (name: string, immutable: boolean): Asset => ({
  body: new TextEncoder().encode(name),
  contentType: "text/plain",
  etag: `"${name}"`,
  immutable,
  encoded: new Map()
})

const ASSETS = new Map<string, Asset>([
  ["/index.html", asset("index", false)],
  ["/assets/index-abc123.js", asset("js", true)],
  ["/favicon.svg", asset("icon", false)]
])

describe("assetFor: which file a GET answers with", () => {
  it.each([
    ["/", "index"],
    ["/links", "index"],
    ["/links/lnk_123", "index"],
    ["/analytics", "index"],
    ["/index.html", "index"],
    ["/assets/index-abc123.js", "js"],
    ["/favicon.svg", "icon"],
    ["/assets/missing.js", undefined],
    ["/assets/no-extension", undefined],
    ["/missing.png", undefined],
    ["/v1/anything", undefined]
  ])("%s → %s", (urlPath, expected) => {
    const found = assetFor(ASSETS, urlPath)
    expect(found === undefined ? undefined : new TextDecoder().decode(found.body)).toBe(expected)
  })

  it("answers nothing when the dashboard was never built", () => {
    expect(assetFor(new Map(), "/")).toBeUndefined()
  })
})

describe("cache and content policy", () => {
  it("hashed assets are immutable for a year, the rest revalidated", () => {
    expect(cacheControl(asset("js", true))).toBe("public, max-age=31536000, immutable")
    expect(cacheControl(asset("index", false))).toBe("no-cache")
  })

  it("allows scripts, styles and connections of this origin only, and no framing", () => {
    const directives = new Map(CONTENT_SECURITY_POLICY.split("; ").map((d) => [d.split(" ")[0], d.split(" ").slice(1)]))
    expect(directives.get("script-src")).toEqual(["'self'"])
    expect(directives.get("connect-src")).toEqual(["'self'"])
    expect(directives.get("default-src")).toEqual(["'self'"])
    expect(directives.get("frame-ancestors")).toEqual(["'none'"])
    expect(CONTENT_SECURITY_POLICY).not.toContain("unsafe-inline")
  })
})

describe("precompressed copies: which one a request gets", () => {
  it.each([
    [undefined, []],
    ["", []],
    ["gzip", ["gzip"]],
    ["gzip, deflate, br, zstd", ["br", "gzip"]],
    ["br;q=0, gzip", ["gzip"]],
    ["BR;Q=0.5", ["br"]],
    ["*", ["br", "gzip"]],
    ["*;q=0", []],
    ["*, gzip;q=0", ["br"]],
    ["identity", []],
    ["deflate", []]
  ])("Accept-Encoding %j accepts %j", (header, codings) => {
    expect([...acceptedEncodings(header)].sort()).toEqual([...codings].sort())
  })

  const both: Asset = { ...asset("js", true), encoded: new Map([["br", new Uint8Array([1])], ["gzip", new Uint8Array([2])]]) }
  const gzipOnly: Asset = { ...asset("js", true), encoded: new Map([["gzip", new Uint8Array([2])]]) }
  it.each([
    ["gzip, br", both, "br", 1],
    ["gzip", both, "gzip", 2],
    [undefined, both, undefined, undefined],
    ["br", gzipOnly, undefined, undefined],
    ["br, gzip", gzipOnly, "gzip", 2]
  ])("%j with copies %# → %s", (header, from, encoding, byte) => {
    const chosen = representationOf(from, header)
    expect(chosen.encoding).toBe(encoding)
    if (byte === undefined) {
      expect(chosen.body).toBe(from.body)
      expect(chosen.etag).toBe(from.etag)
    } else {
      expect([...chosen.body]).toEqual([byte])
      // A coding's own validator, never the plain file's.
      expect(chosen.etag).toBe(`"js-${encoding}"`)
    }
  })
})

describe("loadAssets", () => {
  it("keys files by URL path, types them and marks only /assets/ immutable", async () => {
    const dist = await mkdtemp(path.join(tmpdir(), "ricochet-dist-"))
    try {
      await mkdir(path.join(dist, "assets"))
      await writeFile(path.join(dist, "index.html"), "<!doctype html>")
      await writeFile(path.join(dist, "assets/app-1a2b.js"), "export {}")
      await writeFile(path.join(dist, "assets/app-1a2b.css"), "body{}")
      const assets = await loadAssets(dist)
      expect([...assets.keys()].sort()).toEqual(["/assets/app-1a2b.css", "/assets/app-1a2b.js", "/index.html"])
      expect(assets.get("/index.html")).toMatchObject({ contentType: "text/html; charset=utf-8", immutable: false })
      expect(assets.get("/assets/app-1a2b.js")).toMatchObject({ contentType: "text/javascript; charset=utf-8", immutable: true })
      expect(assets.get("/assets/app-1a2b.css")!.etag).toMatch(/^"[\w-]{22}"$/)
      expect(assets.get("/assets/app-1a2b.js")!.encoded.size).toBe(0)
    } finally {
      await removeDir(dist)
    }
  })

  it("holds a file's .br and .gz copies with it, not as paths of their own", async () => {
    const dist = await mkdtemp(path.join(tmpdir(), "ricochet-dist-"))
    try {
      await writeFile(path.join(dist, "index.html"), "<!doctype html>")
      await writeFile(path.join(dist, "index.html.br"), "brotli bytes")
      await writeFile(path.join(dist, "index.html.gz"), "gzip bytes")
      const assets = await loadAssets(dist)
      expect([...assets.keys()]).toEqual(["/index.html"])
      const index = assets.get("/index.html")!
      expect(new TextDecoder().decode(index.encoded.get("br"))).toBe("brotli bytes")
      expect(new TextDecoder().decode(index.encoded.get("gzip"))).toBe("gzip bytes")
    } finally {
      await removeDir(dist)
    }
  })

  it("is empty when there is no build", async () => {
    expect((await loadAssets(path.join(tmpdir(), "ricochet-no-such-dist"))).size).toBe(0)
  })
})
