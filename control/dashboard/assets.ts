import { readdir, readFile } from "node:fs/promises"
import * as path from "node:path"
import { createHash } from "node:crypto"
import { runsBuilt } from "../../shared/build/modulePaths.ts"

/**
 * Where `vite build` (npm ci's prepare step) writes the dashboard: dashboard/dist of the project,
 * from this file's source (control/dashboard/) or from the bundle it is built into (dist/).
 */
export const DASHBOARD_DIST = path.resolve(import.meta.dirname, runsBuilt(import.meta.url) ? "../dashboard/dist" : "../../dashboard/dist")

/** The content codings the build precompresses (dashboard/build/precompress.ts), best first. */
export const ENCODINGS = [["br", ".br"], ["gzip", ".gz"]] as const
export type Encoding = (typeof ENCODINGS)[number][0]

export interface Asset {
  readonly body: Uint8Array
  readonly contentType: string
  readonly etag: string
  /** Hashed file names never change content: cached for a year; index.html is revalidated every time. */
  readonly immutable: boolean
  /** The same bytes compressed at build time, by content coding. */
  readonly encoded: ReadonlyMap<Encoding, Uint8Array>
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

const isCompressedCopy = (file: string) => ENCODINGS.some(([, ext]) => file.endsWith(ext))

/**
 * The built dashboard, read once at start (a few hundred kB) and keyed by URL path, each file with
 * its precompressed copies; an empty map when it was never built (control then answers `/` with
 * how to build it). The copies are not paths of their own.
 */
export const loadAssets = async (dist = DASHBOARD_DIST): Promise<ReadonlyMap<string, Asset>> => {
  const files = await walk(dist).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return []
    throw error
  })
  const present = new Set(files)
  const assets = new Map<string, Asset>()
  for (const file of files) {
    if (isCompressedCopy(file)) continue
    const body = new Uint8Array(await readFile(file))
    const encoded = new Map<Encoding, Uint8Array>()
    for (const [coding, ext] of ENCODINGS) {
      if (present.has(file + ext)) encoded.set(coding, new Uint8Array(await readFile(file + ext)))
    }
    const urlPath = "/" + path.relative(dist, file).split(path.sep).join("/")
    assets.set(urlPath, {
      body,
      contentType: TYPES[path.extname(file)] ?? "application/octet-stream",
      etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`,
      immutable: urlPath.startsWith("/assets/"),
      encoded
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

/**
 * The codings an Accept-Encoding header accepts (RFC 9110 12.5.3): named with a q above zero,
 * or covered by `*` unless refused by name. Without the header, none.
 */
export const acceptedEncodings = (header: string | undefined): ReadonlySet<Encoding> => {
  const accepted = new Set<Encoding>()
  if (header === undefined) return accepted
  const weights = new Map<string, number>()
  for (const part of header.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";")
    if (name === "") continue
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find((m) => m !== null)
    weights.set(name.trim(), q ? Number(q[1]) : 1)
  }
  for (const [coding] of ENCODINGS) {
    const weight = weights.get(coding) ?? weights.get("*")
    if (weight !== undefined && weight > 0) accepted.add(coding)
  }
  return accepted
}

/** The best precompressed copy the request accepts, or the file as it is. */
export const representationOf = (asset: Asset, acceptEncoding: string | undefined): { body: Uint8Array; encoding: Encoding | undefined; etag: string } => {
  const accepted = acceptedEncodings(acceptEncoding)
  for (const [coding] of ENCODINGS) {
    const body = asset.encoded.get(coding)
    // Each coding its own validator: a cache must not answer a br request with gzip bytes.
    if (body !== undefined && accepted.has(coding)) return { body, encoding: coding, etag: `${asset.etag.slice(0, -1)}-${coding}"` }
  }
  return { body: asset.body, encoding: undefined, etag: asset.etag }
}

export const cacheControl = (asset: Asset) => (asset.immutable ? "public, max-age=31536000, immutable" : "no-cache")
