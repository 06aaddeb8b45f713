import { mkdir, mkdtemp, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { type Asset, assetFor, cacheControl, CONTENT_SECURITY_POLICY, loadAssets } from "../../control/dashboard/assets.ts"
import { removeDir } from "../support/processes.ts"

const asset = (name: string, immutable: boolean): Asset => ({
  body: new TextEncoder().encode(name),
  contentType: "text/plain",
  etag: `"${name}"`,
  immutable
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
    } finally {
      await removeDir(dist)
    }
  })

  it("is empty when there is no build", async () => {
    expect((await loadAssets(path.join(tmpdir(), "ricochet-no-such-dist"))).size).toBe(0)
  })
})
