import { readdir, readFile } from "node:fs/promises"
import * as path from "node:path"
import { createHash } from "node:crypto"
import { runsBuilt } from "../../shared/build/modulePaths.ts"

/**
 * Where `vite build` (npm ci's prepare step) writes the dashboard: dashboard/dist of the project,
 * from this file's source (control/dashboard/) or from the bundle it is built into (dist/).
 */
export const DASHBOARD_DIST = path.resolve(import.meta.dirname, runsBuilt(import.meta.url) ? "../dashboard/dist" : "../../dashboard/dist")

export interface Asset {
  readonly body: Uint8Array
  readonly contentType: string
  readonly etag: string
  /** Hashed file names never change content: cached for a year; index.html is revalidated every time. */
  readonly immutable: boolean
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8"
}

/**
 * Only what the dashboard itself serves: no inline script (the build has none), no other host,
 * not framed. Styles set from script (React, uPlot) go through the CSSOM, which style-src allows.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'"
].join("; ")

const walk = async (dir: string): Promise<Array<string>> => {
  const entries = await readdir(dir, { withFileTypes: true })
  const nested = await Promise.all(entries.map((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : Promise.resolve([path.join(dir, e.name)]))))
  return nested.flat()
}

/**
 * The built dashboard, read once at start (a few hundred kB) and keyed by URL path; an empty map
 * when it was never built (control then answers `/` with how to build it).
 */
export const loadAssets = async (dist = DASHBOARD_DIST): Promise<ReadonlyMap<string, Asset>> => {
  const files = await walk(dist).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return []
    throw error
  })
  const assets = new Map<string, Asset>()
  for (const file of files) {
    const body = new Uint8Array(await readFile(file))
    const urlPath = "/" + path.relative(dist, file).split(path.sep).join("/")
    assets.set(urlPath, {
      body,
      contentType: TYPES[path.extname(file)] ?? "application/octet-stream",
      etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`,
      immutable: urlPath.startsWith("/assets/")
    })
  }
  return assets
}

/**
 * The asset a GET of `urlPath` answers with: the file itself, or index.html for a client-side
 * route (a path whose last segment has no extension), or undefined (a 404).
 */
export const assetFor = (assets: ReadonlyMap<string, Asset>, urlPath: string): Asset | undefined => {
  const file = assets.get(urlPath)
  if (file !== undefined) return file
  const last = urlPath.slice(urlPath.lastIndexOf("/") + 1)
  if (urlPath.startsWith("/v1/") || urlPath.startsWith("/assets/") || last.includes(".")) return undefined
  return assets.get("/index.html")
}

export const cacheControl = (asset: Asset) => (asset.immutable ? "public, max-age=31536000, immutable" : "no-cache")
