import { linkRecord as baseRecord } from "../support/linkRecord.ts"
import { describe, expect, it } from "vitest"
import type { ChangeEvent } from "../../shared/bus/events.ts"
import type { DomainRecord, LinkRecord } from "../../shared/links/linkRecord.ts"
import { type CacheOptions, LinkCache, type LinkSource, MISSING } from "../../engine/cache/linkCache.ts"
import type { CompiledDomain, CompiledLink } from "../../engine/links/compile.ts"

/** The engine's link/domain cache against a fake source that counts and can hold its answers. */

const HOST = "go.example.com"

const linkRecord = (slug: string, url = `https://example.com/${slug}`, fields: Partial<LinkRecord> = {}): LinkRecord =>
  baseRecord({ id: `lnk_${slug}`, host: HOST, slug, url, ...fields })

const domainRecord = (host: string, fields: Partial<DomainRecord> = {}): DomainRecord => ({
  id: `dom_${host}`,
  workspaceId: "ws_1",
  host,
  status: "verified",
  rootRedirectUrl: null,
  notFoundUrl: null,
  expiredUrl: null,
  ...fields
})

interface Deferred<T> {
  readonly promise: Promise<T>
  readonly resolve: (value: T) => void
  readonly reject: (error: unknown) => void
}
const deferred = <T>(): Deferred<T> => {
  let resolve!: (value: T) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

/**
 * A LinkSource over maps. Every call is counted per key; with `hold` set, calls wait until the
 * test releases them, so events can be applied while a load is in flight.
 */
const fakeSource = () => {
  const links = new Map<string, LinkRecord>()
  const domains = new Map<string, DomainRecord>()
  const linkCalls = new Map<string, number>()
  const domainCalls = new Map<string, number>()
  const held: Array<() => void> = []
  let hold = false
  const answer = <T>(value: () => T): Promise<T> => {
    if (!hold) return Promise.resolve().then(value)
    const d = deferred<T>()
    held.push(() => d.resolve(value()))
    return d.promise
  }
  const source: LinkSource = {
    link: (host, slug) => {
      const key = `${host}/${slug}`
      linkCalls.set(key, (linkCalls.get(key) ?? 0) + 1)
      const snapshot = links.get(key) ?? null
      // The answer is what the database held when asked: a change after that is what events report.
      return answer(() => snapshot)
    },
    domain: (host) => {
      domainCalls.set(host, (domainCalls.get(host) ?? 0) + 1)
      const snapshot = domains.get(host) ?? null
      return answer(() => snapshot)
    }
  }
  return {
    source,
    putLink: (r: LinkRecord) => links.set(`${r.host}/${r.slug}`, r),
    dropLink: (host: string, slug: string) => links.delete(`${host}/${slug}`),
    putDomain: (r: DomainRecord) => domains.set(r.host, r),
    linkCalls: (slug: string, host = HOST) => linkCalls.get(`${host}/${slug}`) ?? 0,
    domainCalls: (host: string) => domainCalls.get(host) ?? 0,
    hold: (on: boolean) => {
      hold = on
    },
    release: () => {
      for (const go of held.splice(0)) go()
    }
  }
}

const OPTIONS: CacheOptions = { maxLinks: 1000, maxBytes: 10_000_000, ttlMs: 60_000 }
const setup = (options: Partial<CacheOptions> = {}) => {
  const fake = fakeSource()
  return { fake, cache: new LinkCache(fake.source, { ...OPTIONS, ...options }) }
}

const urlOf = (entry: CompiledLink | typeof MISSING | undefined) => (entry === undefined ? "uncached" : entry === MISSING ? "MISSING" : entry.url)
const statusOf = (entry: CompiledDomain | typeof MISSING | undefined) => (entry === undefined ? "uncached" : entry === MISSING ? "MISSING" : entry.record.status)

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe("misses are coalesced", () => {
  it("50 concurrent loadLink of one key make 1 source call and share the result", async () => {
    const { fake, cache } = setup()
    fake.putLink(linkRecord("abc"))
    fake.hold(true)
    const loads = Array.from({ length: 50 }, () => cache.loadLink(HOST, "abc"))
    fake.release()
    const results = await Promise.all(loads)
    expect(fake.linkCalls("abc")).toBe(1)
    expect(cache.queries).toBe(1)
    expect(new Set(results).size).toBe(1)
    expect(urlOf(results[0])).toBe("https://example.com/abc")
    expect(cache.peekLink(HOST, "abc")).toBe(results[0])
  })

  it("50 concurrent loadLink of a missing key make 1 source call", async () => {
    const { fake, cache } = setup()
    const results = await Promise.all(Array.from({ length: 50 }, () => cache.loadLink(HOST, "nope")))
    expect(fake.linkCalls("nope")).toBe(1)
    expect(results.every((r) => r === MISSING)).toBe(true)
  })

  it("different keys are loaded separately: other slug, other host, slug case", async () => {
    const { fake, cache } = setup()
    await Promise.all([
      ...Array.from({ length: 10 }, () => cache.loadLink(HOST, "a")),
      ...Array.from({ length: 10 }, () => cache.loadLink(HOST, "b")),
      ...Array.from({ length: 10 }, () => cache.loadLink(HOST, "A")),
      ...Array.from({ length: 10 }, () => cache.loadLink("other.example.com", "a"))
    ])
    expect([fake.linkCalls("a"), fake.linkCalls("b"), fake.linkCalls("A"), fake.linkCalls("a", "other.example.com")]).toEqual([1, 1, 1, 1])
    expect(cache.queries).toBe(4)
  })

  it("50 concurrent loadDomain of one host make 1 source call", async () => {
    const { fake, cache } = setup()
    fake.putDomain(domainRecord(HOST))
    fake.hold(true)
    const loads = Array.from({ length: 50 }, () => cache.loadDomain(HOST))
    fake.release()
    const results = await Promise.all(loads)
    expect(fake.domainCalls(HOST)).toBe(1)
    expect(new Set(results).size).toBe(1)
    expect(statusOf(cache.peekDomain(HOST))).toBe("verified")
  })

  it("once settled, a new miss queries again (the in-flight slot is freed)", async () => {
    const { fake, cache } = setup()
    await cache.loadLink(HOST, "abc")
    await cache.loadLink(HOST, "abc")
    expect(fake.linkCalls("abc")).toBe(2)
  })

  it("a failing load is shared by its waiters, not cached, and retried by the next miss", async () => {
    const calls: Array<string> = []
    let fail = true
    const cache = new LinkCache(
      {
        link: async (host, slug) => {
          calls.push(slug)
          if (fail) throw new Error("database down")
          return linkRecord(slug)
        },
        domain: async () => null
      },
      OPTIONS
    )
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => cache.loadLink(HOST, "abc")))
    expect(results.every((r) => r.status === "rejected")).toBe(true)
    expect(calls).toEqual(["abc"])
    expect(cache.peekLink(HOST, "abc")).toBeUndefined()
    fail = false
    expect(urlOf(await cache.loadLink(HOST, "abc"))).toBe("https://example.com/abc")
    expect(calls).toEqual(["abc", "abc"])
  })
})

describe("negative entries", () => {
  it("an unknown slug is cached as MISSING and peekLink returns it", async () => {
    const { cache } = setup()
    expect(cache.peekLink(HOST, "nope")).toBeUndefined()
    expect(await cache.loadLink(HOST, "nope")).toBe(MISSING)
    expect(cache.peekLink(HOST, "nope")).toBe(MISSING)
    expect(cache.size.links).toBe(1)
  })

  it("an unknown host is cached as MISSING and peekDomain returns it", async () => {
    const { cache } = setup()
    expect(await cache.loadDomain("unknown.example")).toBe(MISSING)
    expect(cache.peekDomain("unknown.example")).toBe(MISSING)
  })
})

describe("change events", () => {
  type Start = "uncached" | "MISSING" | "cached"
  const prepare = async (start: Start) => {
    const ctx = setup()
    if (start === "cached") ctx.fake.putLink(linkRecord("abc", "https://example.com/old"))
    if (start !== "uncached") await ctx.cache.loadLink(HOST, "abc")
    return ctx
  }
  const upserted = (url: string): ChangeEvent => ({ type: "link.upserted", link: linkRecord("abc", url) })
  const deleted: ChangeEvent = { type: "link.deleted", id: "lnk_abc", host: HOST, slug: "abc" }

  const rows: ReadonlyArray<readonly [name: string, start: Start, event: ChangeEvent, after: string]> = [
    ["link.upserted replaces a MISSING entry (created after a visitor tried the slug)", "MISSING", upserted("https://example.com/new"), "https://example.com/new"],
    ["link.upserted updates a cached link", "cached", upserted("https://example.com/new"), "https://example.com/new"],
    ["link.upserted for an uncached key does not insert", "uncached", upserted("https://example.com/new"), "uncached"],
    ["link.deleted turns a cached link into MISSING", "cached", deleted, "MISSING"],
    ["link.deleted keeps a MISSING entry MISSING", "MISSING", deleted, "MISSING"],
    ["link.deleted for an uncached key does not insert", "uncached", deleted, "uncached"]
  ]
  it.each(rows)("%s", async (_name, start, event, after) => {
    const { cache } = await prepare(start)
    cache.apply(event)
    expect(urlOf(cache.peekLink(HOST, "abc"))).toBe(after)
  })

  it("link.upserted compiles the new record: rules of the update take effect", async () => {
    const { cache } = await prepare("cached")
    cache.apply({ type: "link.upserted", link: linkRecord("abc", "https://example.com/new", { redirectType: 301, geoRules: [{ country: "de", url: "https://de.example.com/" }] }) })
    const entry = cache.peekLink(HOST, "abc")
    if (entry === undefined || entry === MISSING) throw new Error("not cached")
    expect(entry.status).toBe(301)
    expect(entry.rules?.geo?.get("DE")).toBe("https://de.example.com/")
  })

  it("events touch only their own key", async () => {
    const { fake, cache } = setup()
    fake.putLink(linkRecord("abc", "https://example.com/abc"))
    fake.putLink(linkRecord("xyz", "https://example.com/xyz"))
    fake.putLink(linkRecord("abc", "https://example.com/other-host", { host: "other.example.com" }))
    await Promise.all([cache.loadLink(HOST, "abc"), cache.loadLink(HOST, "xyz"), cache.loadLink("other.example.com", "abc")])
    cache.apply({ type: "link.deleted", id: "lnk_abc", host: HOST, slug: "abc" })
    expect(urlOf(cache.peekLink(HOST, "abc"))).toBe("MISSING")
    expect(urlOf(cache.peekLink(HOST, "xyz"))).toBe("https://example.com/xyz")
    expect(urlOf(cache.peekLink("other.example.com", "abc"))).toBe("https://example.com/other-host")
  })

  it("a slug rename (deleted old + upserted new) stops the old slug and leaves the new one to load", async () => {
    const { fake, cache } = setup()
    fake.putLink(linkRecord("old"))
    await cache.loadLink(HOST, "old")
    cache.apply({ type: "link.deleted", id: "lnk_old", host: HOST, slug: "old" })
    cache.apply({ type: "link.upserted", link: { ...linkRecord("new"), id: "lnk_old" } })
    expect(cache.peekLink(HOST, "old")).toBe(MISSING)
    expect(cache.peekLink(HOST, "new")).toBeUndefined()
  })

  describe("domain events", () => {
    const D = "links.example.org"
    type DStart = "uncached" | "MISSING" | "cached"
    const prepareDomain = async (start: DStart) => {
      const ctx = setup()
      if (start === "cached") ctx.fake.putDomain(domainRecord(D, { status: "pending" }))
      if (start !== "uncached") await ctx.cache.loadDomain(D)
      return ctx
    }
    const rows: ReadonlyArray<readonly [name: string, start: DStart, event: ChangeEvent, after: string]> = [
      ["domain.upserted updates a cached domain (pending → verified)", "cached", { type: "domain.upserted", domain: domainRecord(D) }, "verified"],
      ["domain.upserted replaces a MISSING entry (added after a visit)", "MISSING", { type: "domain.upserted", domain: domainRecord(D) }, "verified"],
      ["domain.upserted for an uncached host does not insert", "uncached", { type: "domain.upserted", domain: domainRecord(D) }, "uncached"],
      ["domain.deleted turns a cached domain into MISSING", "cached", { type: "domain.deleted", id: "dom_x", host: D }, "MISSING"],
      ["domain.deleted for an uncached host does not insert", "uncached", { type: "domain.deleted", id: "dom_x", host: D }, "uncached"]
    ]
    it.each(rows)("%s", async (_name, start, event, after) => {
      const { cache } = await prepareDomain(start)
      cache.apply(event)
      expect(statusOf(cache.peekDomain(D))).toBe(after)
    })

    it("domain.upserted recompiles serving and fallbacks", async () => {
      const { cache } = await prepareDomain("cached")
      expect((cache.peekDomain(D) as CompiledDomain).serving).toBe(false)
      cache.apply({ type: "domain.upserted", domain: domainRecord(D, { expiredUrl: "https://example.com/gone" }) })
      const entry = cache.peekDomain(D) as CompiledDomain
      expect(entry.serving).toBe(true)
      expect(entry.record.expiredUrl).toBe("https://example.com/gone")
      cache.apply({ type: "domain.upserted", domain: domainRecord(D, { status: "failed" }) })
      expect((cache.peekDomain(D) as CompiledDomain).serving).toBe(false)
    })

    it("domain events leave links alone and link events leave domains alone", async () => {
      const { fake, cache } = setup()
      fake.putDomain(domainRecord(HOST))
      fake.putLink(linkRecord("abc"))
      await Promise.all([cache.loadDomain(HOST), cache.loadLink(HOST, "abc")])
      cache.apply({ type: "domain.upserted", domain: domainRecord(HOST, { notFoundUrl: "https://example.com/404" }) })
      cache.apply({ type: "link.deleted", id: "lnk_zzz", host: HOST, slug: "zzz" })
      expect(urlOf(cache.peekLink(HOST, "abc"))).toBe("https://example.com/abc")
      expect(statusOf(cache.peekDomain(HOST))).toBe("verified")
    })
  })
})

describe("reset()", () => {
  it("clears links, negative entries and domains", async () => {
    const { fake, cache } = setup()
    fake.putLink(linkRecord("abc"))
    fake.putDomain(domainRecord(HOST))
    await Promise.all([cache.loadLink(HOST, "abc"), cache.loadLink(HOST, "nope"), cache.loadDomain(HOST), cache.loadDomain("x.example")])
    expect(cache.size.links).toBe(2)
    expect(cache.size.domains).toBe(2)
    cache.reset()
    expect(cache.peekLink(HOST, "abc")).toBeUndefined()
    expect(cache.peekLink(HOST, "nope")).toBeUndefined()
    expect(cache.peekDomain(HOST)).toBeUndefined()
    expect(cache.peekDomain("x.example")).toBeUndefined()
    expect(cache.size).toEqual({ links: 0, domains: 0, bytes: 0, filters: 0 })
  })
})

describe("a change during an in-flight load keeps its (possibly stale) result out of the cache", () => {
  const linkRows: ReadonlyArray<readonly [name: string, change: (cache: LinkCache) => void]> = [
    ["link.upserted", (cache) => cache.apply({ type: "link.upserted", link: linkRecord("abc", "https://example.com/new") })],
    ["link.deleted", (cache) => cache.apply({ type: "link.deleted", id: "lnk_abc", host: HOST, slug: "abc" })],
    ["reset()", (cache) => cache.reset()]
  ]
  it.each(linkRows)("link load, then %s, then the old answer arrives", async (_name, change) => {
    const { fake, cache } = setup()
    fake.putLink(linkRecord("abc", "https://example.com/old"))
    fake.hold(true)
    const load = cache.loadLink(HOST, "abc")
    change(cache)
    fake.release()
    // The waiting visitor is still answered, but the answer is not kept.
    expect(urlOf(await load)).toBe("https://example.com/old")
    expect(cache.peekLink(HOST, "abc")).toBeUndefined()
    // The next visitor loads afresh.
    fake.hold(false)
    fake.putLink(linkRecord("abc", "https://example.com/new"))
    expect(urlOf(await cache.loadLink(HOST, "abc"))).toBe("https://example.com/new")
    expect(urlOf(cache.peekLink(HOST, "abc"))).toBe("https://example.com/new")
    expect(fake.linkCalls("abc")).toBe(2)
  })

  it("a create arriving while a miss is in flight: the MISSING answer is not cached", async () => {
    const { fake, cache } = setup()
    fake.hold(true)
    const load = cache.loadLink(HOST, "abc")
    cache.apply({ type: "link.upserted", link: linkRecord("abc") })
    fake.release()
    expect(await load).toBe(MISSING)
    expect(cache.peekLink(HOST, "abc")).toBeUndefined()
  })

  it("an event for another key does not spoil the load", async () => {
    const { fake, cache } = setup()
    fake.putLink(linkRecord("abc"))
    fake.hold(true)
    const load = cache.loadLink(HOST, "abc")
    cache.apply({ type: "link.upserted", link: linkRecord("xyz") })
    cache.apply({ type: "link.deleted", id: "lnk_abc", host: "other.example.com", slug: "abc" })
    cache.apply({ type: "domain.deleted", id: "d", host: HOST })
    fake.release()
    await load
    expect(urlOf(cache.peekLink(HOST, "abc"))).toBe("https://example.com/abc")
  })

  it.each([
    ["domain.upserted", { type: "domain.upserted", domain: domainRecord(HOST, { status: "failed" }) } as ChangeEvent],
    ["domain.deleted", { type: "domain.deleted", id: "d", host: HOST } as ChangeEvent]
  ])("domain load, then %s: not cached", async (_name, event) => {
    const { fake, cache } = setup()
    fake.putDomain(domainRecord(HOST))
    fake.hold(true)
    const load = cache.loadDomain(HOST)
    cache.apply(event)
    fake.release()
    expect(statusOf(await load)).toBe("verified")
    expect(cache.peekDomain(HOST)).toBeUndefined()
  })

  it("waiters that joined before the event share the one query", async () => {
    const { fake, cache } = setup()
    fake.putLink(linkRecord("abc"))
    fake.hold(true)
    const first = cache.loadLink(HOST, "abc")
    const second = cache.loadLink(HOST, "abc")
    cache.apply({ type: "link.upserted", link: linkRecord("abc", "https://example.com/new") })
    fake.release()
    await Promise.all([first, second])
    expect(fake.linkCalls("abc")).toBe(1)
    expect(cache.peekLink(HOST, "abc")).toBeUndefined()
  })
})

describe("TTL and bounds", () => {
  it("entries expire after ttlMs: links, negative entries and domains", async () => {
    const { fake, cache } = setup({ ttlMs: 150 })
    fake.putLink(linkRecord("abc"))
    fake.putDomain(domainRecord(HOST))
    await Promise.all([cache.loadLink(HOST, "abc"), cache.loadLink(HOST, "nope"), cache.loadDomain(HOST)])
    expect(urlOf(cache.peekLink(HOST, "abc"))).toBe("https://example.com/abc")
    expect(cache.peekLink(HOST, "nope")).toBe(MISSING)
    expect(statusOf(cache.peekDomain(HOST))).toBe("verified")
    await sleep(400)
    expect(cache.peekLink(HOST, "abc")).toBeUndefined()
    expect(cache.peekLink(HOST, "nope")).toBeUndefined()
    expect(cache.peekDomain(HOST)).toBeUndefined()
  })

  it("an event does not revive an expired entry", async () => {
    const { fake, cache } = setup({ ttlMs: 150 })
    fake.putLink(linkRecord("abc"))
    await cache.loadLink(HOST, "abc")
    await sleep(400)
    cache.apply({ type: "link.upserted", link: linkRecord("abc", "https://example.com/new") })
    expect(cache.peekLink(HOST, "abc")).toBeUndefined()
  })

  it("keeps at most maxLinks, evicting the least recently used", async () => {
    const { fake, cache } = setup({ maxLinks: 2 })
    for (const slug of ["a", "b", "c"]) fake.putLink(linkRecord(slug))
    await cache.loadLink(HOST, "a")
    await cache.loadLink(HOST, "b")
    cache.peekLink(HOST, "a") // a is now more recent than b
    await cache.loadLink(HOST, "c")
    expect(cache.size.links).toBe(2)
    expect(cache.peekLink(HOST, "b")).toBeUndefined()
    expect(urlOf(cache.peekLink(HOST, "a"))).toBe("https://example.com/a")
    expect(urlOf(cache.peekLink(HOST, "c"))).toBe("https://example.com/c")
  })

  it("keeps the byte bound", async () => {
    const { fake, cache } = setup({ maxBytes: 4_000 })
    for (let i = 0; i < 50; i++) fake.putLink(linkRecord(`s${i}`, `https://example.com/${"x".repeat(200)}/${i}`))
    for (let i = 0; i < 50; i++) await cache.loadLink(HOST, `s${i}`)
    expect(cache.size.bytes).toBeGreaterThan(0)
    expect(cache.size.bytes).toBeLessThanOrEqual(4_000)
    expect(cache.size.links).toBeLessThan(50)
    expect(urlOf(cache.peekLink(HOST, "s49"))).toBe(`https://example.com/${"x".repeat(200)}/49`)
  })
})
