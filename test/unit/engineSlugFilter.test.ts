import { linkRecord } from "../support/linkRecord.ts"
import { describe, expect, it } from "vitest"
import { LinkCache } from "../../engine/cache/linkCache.ts"
import { SlugFilter } from "../../engine/cache/slugFilter.ts"
import type { LinkRecord } from "../../shared/links/linkRecord.ts"

const HOST = "acme.localhost"

const record = (slug: string): LinkRecord => linkRecord({ id: `lnk_${slug}`, host: HOST, slug, url: `https://example.com/${slug}` })

const settle = () => new Promise((r) => setTimeout(r, 10))

describe("SlugFilter", () => {
  it("never says no to a slug it holds, and rarely yes to one it does not", () => {
    const filter = SlugFilter.forCount(10_000)
    for (let i = 0; i < 10_000; i++) filter.add(`s${i}`)
    for (let i = 0; i < 10_000; i++) expect(filter.mayContain(`s${i}`)).toBe(true)
    let falsePositives = 0
    for (let i = 0; i < 100_000; i++) if (filter.mayContain(`other-${i}`)) falsePositives++
    expect(falsePositives / 100_000).toBeLessThan(0.01)
  })

  it("reports saturation past its capacity", () => {
    const filter = new SlugFilter(1024)
    for (let i = 0; i <= 1024; i++) filter.add(`s${i}`)
    expect(filter.saturated).toBe(true)
  })
})

describe("LinkCache slug filters", () => {
  const source = (slugs: Array<string>) => {
    let lists = 0
    return {
      lists: () => lists,
      source: {
        link: async (_host: string, slug: string) => (slugs.includes(slug) ? record(slug) : null),
        domain: async () => null,
        slugs: async function*() {
          lists++
          yield [...slugs]
        }
      }
    }
  }

  it("answers unknown slugs from the filter once it is built, known ones go on to the cache", async () => {
    const fake = source(["alpha", "beta"])
    const cache = new LinkCache(fake.source, { maxLinks: 100, maxBytes: 1e6, ttlMs: 60_000 })
    expect(cache.mayExist(HOST, "zzz")).toBeUndefined() // building
    await settle()
    expect(cache.mayExist(HOST, "zzz")).toBe(false)
    expect(cache.mayExist(HOST, "alpha")).toBe(true)
    expect(cache.filtered).toBe(1)
    expect(fake.lists()).toBe(1)
  })

  it("learns slugs created while it was being built and after", async () => {
    const fake = source(["alpha"])
    const cache = new LinkCache(fake.source, { maxLinks: 100, maxBytes: 1e6, ttlMs: 60_000 })
    cache.mayExist(HOST, "x")
    cache.apply({ type: "link.upserted", link: record("during") })
    await settle()
    cache.apply({ type: "link.upserted", link: record("after") })
    expect(cache.mayExist(HOST, "during")).toBe(true)
    expect(cache.mayExist(HOST, "after")).toBe(true)
  })

  it("drops filters on reset and rebuilds them", async () => {
    const fake = source(["alpha"])
    const cache = new LinkCache(fake.source, { maxLinks: 100, maxBytes: 1e6, ttlMs: 60_000 })
    cache.mayExist(HOST, "x")
    await settle()
    cache.reset()
    expect(cache.mayExist(HOST, "x")).toBeUndefined()
    await settle()
    expect(cache.mayExist(HOST, "x")).toBe(false)
    expect(fake.lists()).toBe(2)
  })

  it("has no opinion when the source cannot list slugs", () => {
    const cache = new LinkCache({ link: async () => null, domain: async () => null }, { maxLinks: 100, maxBytes: 1e6, ttlMs: 60_000 })
    expect(cache.mayExist(HOST, "x")).toBeUndefined()
    expect(cache.mayExist(HOST, "x")).toBeUndefined()
  })
})

describe("LinkCache batched misses", () => {
  it("answers the misses of one event-loop turn with one query, and each key gets its own answer", async () => {
    const calls: Array<number> = []
    const existing = new Set(["a", "b", "c"])
    const cache = new LinkCache({
      link: async () => {
        throw new Error("batched sources are asked in batches")
      },
      links: async (keys) => {
        calls.push(keys.length)
        return new Map(keys.filter((k) => existing.has(k.slug)).map((k) => [`${k.host}\n${k.slug}`, record(k.slug)]))
      },
      domain: async () => null
    }, { maxLinks: 1000, maxBytes: 1e7, ttlMs: 60_000 })
    const slugs = ["a", "b", "c", "x", "y", "a", "b"]
    const answers = await Promise.all(slugs.map((slug) => cache.loadLink(HOST, slug)))
    expect(calls).toEqual([5]) // five distinct keys, one query
    expect(cache.queries).toBe(1)
    expect(answers.map((a) => (typeof a === "symbol" ? null : a.id))).toEqual(["lnk_a", "lnk_b", "lnk_c", null, null, "lnk_a", "lnk_b"])
    // Answers are cached (the engine peeks before it loads); the next turn's misses are a new batch.
    expect(cache.peekLink(HOST, "a")).toBeDefined()
    expect(cache.peekLink(HOST, "x")).toBeDefined()
    await cache.loadLink(HOST, "z")
    expect(calls).toEqual([5, 1])
  })

  it("fails every waiter of a batch whose query fails, and caches nothing", async () => {
    const cache = new LinkCache({
      link: async () => null,
      links: async () => {
        throw new Error("database down")
      },
      domain: async () => null
    }, { maxLinks: 1000, maxBytes: 1e7, ttlMs: 60_000 })
    const results = await Promise.allSettled(["a", "b"].map((slug) => cache.loadLink(HOST, slug)))
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"])
    expect(cache.peekLink(HOST, "a")).toBeUndefined()
  })
})
