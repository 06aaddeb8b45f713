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
