import { LinkCache } from "../../engine/cache/linkCache.ts"
import type { LinkSource } from "../../engine/cache/linkSource.ts"
import { loadConfig } from "../../config.ts"
import type { LinkRecord } from "../../shared/links/linkRecord.ts"
import { linkRecord } from "../../test/support/linkRecord.ts"

/**
 * One memory measurement, in its own process so nothing else shares the heap:
 *   node --expose-gc --import tsx bench/lib/memoryChild.ts cache|map COUNT
 * `cache`: the engine's LinkCache (default engine bounds) filled with COUNT distinct links through
 * loadLink, from a fake LinkSource returning synthetic LinkRecords of realistic size.
 * `map`: the baseline, a plain Map from the same keys to COUNT url strings.
 * Prints one line: MEMORY_JSON {...}.
 */

const gc = (globalThis as { gc?: () => void }).gc
if (gc === undefined) {
  console.error("memoryChild: run node with --expose-gc")
  process.exit(2)
}

const [mode, countArg] = process.argv.slice(2)
const count = Number(countArg ?? 1_000_000)
if ((mode !== "cache" && mode !== "map") || !(count > 0)) {
  console.error("usage: memoryChild.ts cache|map COUNT")
  process.exit(2)
}

const HOST = "my-workspace.localhost"
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

/** A fresh copy of a string, as a database driver would hand one per row (not an interned literal). */
const fresh = (s: string) => Buffer.from(s).toString()

/** 7-character base62 slug of i (i < 62^7). */
const slugOf = (i: number) => {
  let s = ""
  for (let k = 0; k < 7; k++) {
    s = ALPHABET[i % 62] + s
    i = Math.floor(i / 62)
  }
  return s
}
const indexOf = (slug: string) => {
  let i = 0
  for (const c of slug) i = i * 62 + ALPHABET.indexOf(c)
  return i
}

const id = (prefix: string, i: number) => fresh(`${prefix}${i.toString(36).padStart(20, "x")}`)

/**
 * ~60-character url; a third with a utm set, a tenth with two geo rules, a twentieth with device
 * rules. Every url a fresh flat string as a driver hands it: a template literal is a rope sharing
 * its literal parts, smaller than a row's string until something (URL parsing) flattens it.
 */
const urlOf = (i: number) => fresh(`https://www.example-shop.com/products/catalogue/item-${i}?ref=nl`)
const record = (i: number): LinkRecord =>
  linkRecord({
    id: id("lnk_", i),
    workspaceId: fresh("ws_0123456789abcdefghij"),
    domainId: fresh("dom_0123456789abcdefghij"),
    host: fresh(HOST),
    slug: slugOf(i),
    url: urlOf(i),
    utm: i % 3 === 0 ? { source: fresh("newsletter"), medium: fresh("email"), campaign: fresh("spring-sale") } : null,
    geoRules: i % 10 === 0
      ? [
        { country: fresh("DE"), url: fresh(`https://de.example-shop.com/produkte/katalog/artikel-${i}`) },
        { country: fresh("FR"), url: fresh(`https://fr.example-shop.com/produits/catalogue/article-${i}`) }
      ]
      : [],
    deviceRules: i % 20 === 0 ? [{ device: "ios", url: fresh(`https://apps.apple.com/app/example-shop/id${100000 + i}`) }] : [],
    updatedAt: new Date(1_750_000_000_000 + i * 1000).toISOString()
  })

const settle = async () => {
  for (let k = 0; k < 3; k++) {
    gc()
    await new Promise((r) => setTimeout(r, 50))
  }
}

const main = async () => {
  await settle()
  const before = process.memoryUsage()
  let held: unknown
  let cached = 0
  let cacheBytes = 0
  const started = Date.now()
  if (mode === "cache") {
    const config = loadConfig({})
    const source: LinkSource = {
      link: async (host, slug) => (host === HOST ? record(indexOf(slug)) : null),
      domain: async () => null
    }
    const BATCH = 10_000
    const cache = new LinkCache(source, {
      maxLinks: config.cacheMaxLinks,
      maxBytes: config.cacheMaxMegabytes * 1024 * 1024,
      ttlMs: config.cacheTtlSeconds * 1000,
      // This source answers one link a call, BATCH at once; the engine's own source batches.
      maxOutstandingLoads: BATCH
    })
    for (let start = 0; start < count; start += BATCH) {
      const batch: Array<Promise<unknown>> = []
      for (let i = start; i < Math.min(count, start + BATCH); i++) batch.push(cache.loadLink(HOST, slugOf(i)))
      await Promise.all(batch)
    }
    cached = cache.size.links
    cacheBytes = cache.size.bytes
    held = cache
  } else {
    const map = new Map<string, string>()
    for (let i = 0; i < count; i++) map.set(`${HOST}\n${slugOf(i)}`, urlOf(i))
    cached = map.size
    held = map
  }
  const loadMs = Date.now() - started
  await settle()
  const after = process.memoryUsage()
  console.log(
    "MEMORY_JSON " +
      JSON.stringify({
        mode,
        count,
        cached,
        cacheBytes,
        loadMs,
        rssBefore: before.rss,
        rssAfter: after.rss,
        heapBefore: before.heapUsed,
        heapAfter: after.heapUsed,
        externalBefore: before.external + before.arrayBuffers,
        externalAfter: after.external + after.arrayBuffers
      })
  )
  // Keeps the structure alive until after the measurement.
  if (held === undefined) process.exit(3)
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
