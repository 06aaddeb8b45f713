import { linkRecord as baseRecord } from "../support/linkRecord.ts"
import { describe, expect, it } from "vitest"
import type { ChangeEvent } from "../../shared/bus/events.ts"
import type { DomainRecord, LinkRecord } from "../../shared/links/linkRecord.ts"
import { type CacheOptions, LinkCache, MISSING } from "../../engine/cache/linkCache.ts"
import type { LinkSource } from "../../engine/cache/linkSource.ts"
import { SourceUnavailable } from "../../engine/cache/sourceGuard.ts"
import type { CompiledDomain, CompiledLink } from "../../engine/links/compile.ts"
import { sleep } from "../support/time.ts"

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

/** How the fake database behaves: answering, failing every call, or never answering. */
type Outage = "up" | "fail" | "hang"

/**
 * A LinkSource over maps. Every call is counted per key; with `hold` set, calls wait until the
 * test releases them, so events can be applied while a load is in flight. `outage` makes every
 * call (slug listings too) fail or hang.
 */
const fakeSource = () => {
  const links = new Map<string, LinkRecord>()
  const domains = new Map<string, DomainRecord>()
  const linkCalls = new Map<string, number>()
  const domainCalls = new Map<string, number>()
  const held: Array<() => void> = []
  let hold = false
  let outage: Outage = "up"
  let lists = 0
  const answer = <T>(value: () => T): Promise<T> => {
    if (outage === "fail") return Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:5432"))
    if (outage === "hang") return new Promise<T>(() => {})
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
    },
    slugs: async function*(host) {
      lists++
      const snapshot = [...links.values()].filter((r) => r.host === host).map((r) => r.slug)
      yield await answer(() => snapshot)
    }
  }
  return {
    source,
    outage: (mode: Outage) => {
      outage = mode
    },
    lists: () => lists,
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
  it("expires links, negative entries and domains at once", async () => {
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
    // Kept, bounded by the LRU, only as last known answers for a database outage.
    expect(cache.size).toMatchObject({ links: 2, domains: 2, filters: 0 })
  })

  it("reloads every entry on its next visit", async () => {
    const { fake, cache } = setup()
    fake.putLink(linkRecord("abc", "https://example.com/old"))
    await cache.loadLink(HOST, "abc")
    // Changed while the bus was away: no event reached this engine.
    fake.putLink(linkRecord("abc", "https://example.com/new"))
    cache.reset()
    expect(urlOf(await cache.loadLink(HOST, "abc"))).toBe("https://example.com/new")
    expect(urlOf(cache.peekLink(HOST, "abc"))).toBe("https://example.com/new")
    expect(fake.linkCalls("abc")).toBe(2)
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

  it("the entry bound through every way in: prefill from another worker, and a blocking load", async () => {
    const { cache } = setup({ maxLinks: 3 })
    cache.prefill({ links: ["a", "b", "c", "d"].map((slug) => linkRecord(slug)), missingLinks: [{ host: HOST, slug: "e" }], domains: [], missingDomains: [] })
    expect(cache.size.links).toBe(3)
    // The newest stay: c, d and the negative e.
    expect(["a", "b", "c", "d", "e"].map((slug) => urlOf(cache.peekLink(HOST, slug)))).toEqual(["uncached", "uncached", "https://example.com/c", "https://example.com/d", "MISSING"])
  })

  it("an empty cache holds no room for the entries it may hold one day (2,000,000 by default)", () => {
    const before = process.memoryUsage().heapUsed
    const caches = Array.from({ length: 4 }, () => setup({ maxLinks: 2_000_000 }).cache)
    // lru-cache's `max` allocates five arrays of that length each (about 80 MB of heap a cache).
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(40 * 1024 * 1024)
    expect(caches.every((cache) => cache.size.links === 0)).toBe(true)
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

describe("stale-if-error: the last known answer while the database cannot answer", () => {
  type Cached = (ctx: ReturnType<typeof setup>) => Promise<void>
  const expiredLink: Cached = async ({ fake, cache }) => {
    fake.putLink(linkRecord("abc", "https://example.com/old"))
    await cache.loadLink(HOST, "abc")
    await sleep(200)
  }
  const rows: ReadonlyArray<readonly [name: string, cached: Cached, outage: Outage, load: (cache: LinkCache) => Promise<unknown>, answer: string]> = [
    ["an expired link, database refusing", expiredLink, "fail", (c) => c.loadLink(HOST, "abc").then(urlOf), "https://example.com/old"],
    ["an expired link, database hanging", expiredLink, "hang", (c) => c.loadLink(HOST, "abc").then(urlOf), "https://example.com/old"],
    ["an expired negative entry", async ({ cache }) => {
      await cache.loadLink(HOST, "nope")
      await sleep(200)
    }, "fail", (c) => c.loadLink(HOST, "nope").then(urlOf), "MISSING"],
    ["an expired domain, database hanging", async ({ fake, cache }) => {
      fake.putDomain(domainRecord(HOST))
      await cache.loadDomain(HOST)
      await sleep(200)
    }, "hang", (c) => c.loadDomain(HOST).then(statusOf), "verified"],
    ["a link expired by a bus reset", async ({ fake, cache }) => {
      fake.putLink(linkRecord("abc", "https://example.com/old"))
      await cache.loadLink(HOST, "abc")
      cache.reset()
    }, "fail", (c) => c.loadLink(HOST, "abc").then(urlOf), "https://example.com/old"],
    ["an expired link an event changed since: the event's value", async (ctx) => {
      await expiredLink(ctx)
      ctx.cache.apply({ type: "link.upserted", link: linkRecord("abc", "https://example.com/from-event") })
      expect(ctx.cache.peekLink(HOST, "abc")).toBeUndefined() // still expired: reloaded while the database answers
    }, "fail", (c) => c.loadLink(HOST, "abc").then(urlOf), "https://example.com/from-event"],
    ["an expired link deleted since: gone", async (ctx) => {
      await expiredLink(ctx)
      ctx.cache.apply({ type: "link.deleted", id: "lnk_abc", host: HOST, slug: "abc" })
    }, "hang", (c) => c.loadLink(HOST, "abc").then(urlOf), "MISSING"]
  ]
  it.each(rows)("%s", async (_name, cached, outage, load, answer) => {
    const ctx = setup({ ttlMs: 100, loadTimeoutMs: 150 })
    await cached(ctx)
    ctx.fake.outage(outage)
    const started = Date.now()
    expect(await load(ctx.cache)).toBe(answer)
    expect(Date.now() - started).toBeLessThan(1_000)
    expect(ctx.cache.staleAnswers).toBe(1)
    expect(ctx.cache.sourceFailures).toBe(1)
  })

  it.each(["fail", "hang"] as const)("with no earlier answer, a database that does %s gives SourceUnavailable (never MISSING), within the timeout", async (outage) => {
    const { fake, cache } = setup({ loadTimeoutMs: 150 })
    fake.putLink(linkRecord("abc"))
    fake.outage(outage)
    const started = Date.now()
    await expect(cache.loadLink(HOST, "abc")).rejects.toBeInstanceOf(SourceUnavailable)
    await expect(cache.loadDomain(HOST)).rejects.toBeInstanceOf(SourceUnavailable)
    expect(Date.now() - started).toBeLessThan(1_000)
    expect(cache.peekLink(HOST, "abc")).toBeUndefined()
  })

  it("with no entry, a slug filter's 'no' is the last known answer, even when too old to be trusted otherwise", async () => {
    const { fake, cache } = setup({ ttlMs: 100, loadTimeoutMs: 150 })
    fake.putLink(linkRecord("old"))
    cache.mayExist(HOST, "x")
    await sleep(10)
    cache.setBusState({ connected: false, since: Date.now() })
    fake.outage("fail")
    await sleep(150)
    expect(cache.mayExist(HOST, "unknown")).toBeUndefined() // not trusted for a plain lookup any more
    expect(await cache.loadLink(HOST, "unknown")).toBe(MISSING)
    await expect(cache.loadLink(HOST, "old")).rejects.toBeInstanceOf(SourceUnavailable)
    expect(cache.staleAnswers).toBe(1)
  })

  it("the same for batched loads", async () => {
    let down = true
    const cache = new LinkCache({
      link: async () => null,
      links: async (keys) => {
        if (down) throw new Error("connection terminated")
        return new Map(keys.map((k) => [`${k.host}\n${k.slug}`, linkRecord(k.slug, "https://example.com/new")]))
      },
      domain: async () => null
    }, { ...OPTIONS, ttlMs: 100 })
    down = false
    await cache.loadLink(HOST, "abc")
    await sleep(200)
    down = true
    const [known, unknown] = await Promise.allSettled([cache.loadLink(HOST, "abc"), cache.loadLink(HOST, "xyz")])
    expect(known.status === "fulfilled" && urlOf(known.value)).toBe("https://example.com/new")
    expect(unknown.status === "rejected" && unknown.reason).toBeInstanceOf(SourceUnavailable)
  })

  it("after a failed reload the old answer is served from memory for a while, then the database is asked again", async () => {
    const { fake, cache } = setup({ ttlMs: 150 })
    fake.putLink(linkRecord("abc", "https://example.com/old"))
    await cache.loadLink(HOST, "abc")
    await sleep(250)
    fake.outage("fail")
    await cache.loadLink(HOST, "abc")
    // The hot path (synchronous) has it again: visitors do not each wait on the database.
    expect(urlOf(cache.peekLink(HOST, "abc"))).toBe("https://example.com/old")
    fake.outage("up")
    fake.putLink(linkRecord("abc", "https://example.com/new"))
    await sleep(250)
    expect(cache.peekLink(HOST, "abc")).toBeUndefined()
    // No query has succeeded since the failure: this visitor still gets the old answer at once,
    // and the query made for it refreshes the entry for the next.
    expect(urlOf(await cache.loadLink(HOST, "abc"))).toBe("https://example.com/old")
    await sleep(10)
    expect(urlOf(cache.peekLink(HOST, "abc"))).toBe("https://example.com/new")
    expect(fake.linkCalls("abc")).toBe(3)
  })

  it("while the database is failing, an expired entry is answered at once, not after the timeout", async () => {
    const { fake, cache } = setup({ ttlMs: 100, loadTimeoutMs: 300 })
    for (const slug of ["a", "b", "c"]) fake.putLink(linkRecord(slug, `https://example.com/${slug}-old`))
    await Promise.all(["a", "b", "c"].map((slug) => cache.loadLink(HOST, slug)))
    await sleep(200)
    fake.outage("hang")
    let started = Date.now()
    expect(urlOf(await cache.loadLink(HOST, "a"))).toBe("https://example.com/a-old")
    expect(Date.now() - started).toBeGreaterThanOrEqual(250) // the first one finds out
    started = Date.now()
    expect(urlOf(await cache.loadLink(HOST, "b"))).toBe("https://example.com/b-old")
    expect(Date.now() - started).toBeLessThan(100)
    expect(fake.linkCalls("b")).toBe(2) // asked again in the background
    // Once a query succeeds, expired entries wait for their reload again.
    fake.outage("up")
    fake.putLink(linkRecord("c", "https://example.com/c-new"))
    await cache.loadLink(HOST, "other")
    expect(urlOf(await cache.loadLink(HOST, "c"))).toBe("https://example.com/c-new")
  })

  it("calls left hanging are bounded: past maxOutstandingLoads, loads fail at once without a query", async () => {
    const { fake, cache } = setup({ loadTimeoutMs: 100, maxOutstandingLoads: 2 })
    fake.outage("hang")
    const first = [cache.loadLink(HOST, "a"), cache.loadLink(HOST, "b")].map((p) => p.catch((e) => e))
    const started = Date.now()
    await expect(cache.loadLink(HOST, "c")).rejects.toBeInstanceOf(SourceUnavailable)
    expect(Date.now() - started).toBeLessThan(50)
    expect(fake.linkCalls("c")).toBe(0)
    for (const error of await Promise.all(first)) expect(error).toBeInstanceOf(SourceUnavailable)
    // The timed-out queries still hang, so they still count.
    await expect(cache.loadLink(HOST, "d")).rejects.toBeInstanceOf(SourceUnavailable)
    expect(fake.linkCalls("d")).toBe(0)
  })
})

describe("another cache's last known answer (LinkSource.lastKnownLink/lastKnownDomain), when this one has none", () => {
  /** A cache whose source also answers what the engine's other caches last knew (an HTTP worker's: the main thread's store). */
  const withElsewhere = (options: Partial<CacheOptions> = {}) => {
    const fake = fakeSource()
    const links = new Map<string, LinkRecord | null>()
    const domains = new Map<string, DomainRecord | null>()
    const asked: Array<string> = []
    const source: LinkSource = {
      ...fake.source,
      lastKnownLink: async (host, slug) => {
        asked.push(`${host}/${slug}`)
        return links.get(`${host}/${slug}`)
      },
      lastKnownDomain: async (host) => {
        asked.push(host)
        return domains.get(host)
      }
    }
    return { fake, links, domains, asked, cache: new LinkCache(source, { ...OPTIONS, loadTimeoutMs: 150, ...options }) }
  }
  type Ctx = ReturnType<typeof withElsewhere>
  const linkAbc = (c: LinkCache) => c.loadLink(HOST, "abc").then(urlOf)
  const peekAbc = (c: LinkCache) => urlOf(c.peekLink(HOST, "abc"))
  const rows: ReadonlyArray<readonly [name: string, outage: Outage, known: (ctx: Ctx) => void, load: (cache: LinkCache) => Promise<string>, peek: (cache: LinkCache) => string, answer: string]> = [
    ["a link, database refusing", "fail", ({ links }) => links.set(`${HOST}/abc`, linkRecord("abc", "https://example.com/known")), linkAbc, peekAbc, "https://example.com/known"],
    ["a link, database hanging", "hang", ({ links }) => links.set(`${HOST}/abc`, linkRecord("abc", "https://example.com/known")), linkAbc, peekAbc, "https://example.com/known"],
    ["a slug known not to exist", "fail", ({ links }) => links.set(`${HOST}/abc`, null), linkAbc, peekAbc, "MISSING"],
    ["a domain", "fail", ({ domains }) => domains.set(HOST, domainRecord(HOST)), (c) => c.loadDomain(HOST).then(statusOf), (c) => statusOf(c.peekDomain(HOST)), "verified"],
    ["a domain known not to exist", "hang", ({ domains }) => domains.set(HOST, null), (c) => c.loadDomain(HOST).then(statusOf), (c) => statusOf(c.peekDomain(HOST)), "MISSING"]
  ]
  it.each(rows)("%s: served, and kept for a while on the hot path", async (_name, outage, known, load, peek, answer) => {
    const ctx = withElsewhere()
    known(ctx)
    ctx.fake.outage(outage)
    expect(await load(ctx.cache)).toBe(answer)
    expect(peek(ctx.cache)).toBe(answer)
    expect(ctx.asked).toHaveLength(1)
    expect(ctx.cache.staleAnswers).toBe(1)
  })

  it.each(["fail", "hang"] as const)("nothing known there either, database that does %s: SourceUnavailable", async (outage) => {
    const { fake, cache, asked } = withElsewhere()
    fake.outage(outage)
    await expect(cache.loadLink(HOST, "abc")).rejects.toBeInstanceOf(SourceUnavailable)
    await expect(cache.loadDomain(HOST)).rejects.toBeInstanceOf(SourceUnavailable)
    expect(asked).toEqual([`${HOST}/abc`, HOST])
  })

  it("not asked while the database answers, nor when this cache has a last known answer of its own", async () => {
    const { fake, cache, links, asked } = withElsewhere({ ttlMs: 100 })
    fake.putLink(linkRecord("abc", "https://example.com/own"))
    links.set(`${HOST}/abc`, linkRecord("abc", "https://example.com/elsewhere"))
    expect(urlOf(await cache.loadLink(HOST, "abc"))).toBe("https://example.com/own")
    await sleep(150)
    fake.outage("fail")
    expect(urlOf(await cache.loadLink(HOST, "abc"))).toBe("https://example.com/own")
    expect(asked).toEqual([])
  })

  it("batched loads: each key falls back on its own", async () => {
    const known = new Map([[`${HOST}/abc`, linkRecord("abc", "https://example.com/known")]])
    const cache = new LinkCache({
      link: async () => null,
      links: async () => {
        throw new Error("connection terminated")
      },
      domain: async () => null,
      lastKnownLink: async (host, slug) => known.get(`${host}/${slug}`)
    }, OPTIONS)
    const [abc, xyz] = await Promise.allSettled([cache.loadLink(HOST, "abc"), cache.loadLink(HOST, "xyz")])
    expect(abc.status === "fulfilled" && urlOf(abc.value)).toBe("https://example.com/known")
    expect(xyz.status === "rejected" && xyz.reason).toBeInstanceOf(SourceUnavailable)
  })

  it("nothing known there, the domain's slug filter still says 'no'", async () => {
    const { fake, cache } = withElsewhere()
    fake.putLink(linkRecord("old"))
    cache.mayExist(HOST, "x")
    await sleep(10)
    fake.outage("fail")
    expect(await cache.loadLink(HOST, "unknown")).toBe(MISSING)
  })

  it("an answer the database gives again replaces it once the retry interval has passed", async () => {
    const { fake, cache, links } = withElsewhere({ ttlMs: 100 })
    links.set(`${HOST}/abc`, linkRecord("abc", "https://example.com/known"))
    fake.outage("fail")
    expect(urlOf(await cache.loadLink(HOST, "abc"))).toBe("https://example.com/known")
    fake.outage("up")
    fake.putLink(linkRecord("abc", "https://example.com/changed"))
    await sleep(150)
    // The database has not answered since it failed: served at once, refreshed in the background.
    await cache.loadLink(HOST, "abc")
    await sleep(10)
    expect(urlOf(cache.peekLink(HOST, "abc"))).toBe("https://example.com/changed")
  })
})

describe("slug filters while the bus is disconnected", () => {
  const TTL = 300
  /** A cache whose filter for HOST is built (knowing "old"), then a link created behind the bus's back. */
  const filterBuilt = async () => {
    const ctx = setup({ ttlMs: TTL, filterBuildTimeoutMs: 100 })
    ctx.fake.putLink(linkRecord("old"))
    ctx.cache.mayExist(HOST, "x")
    await sleep(10)
    expect(ctx.cache.mayExist(HOST, "new")).toBe(false)
    ctx.fake.putLink(linkRecord("new"))
    return ctx
  }
  type Answer = boolean | undefined
  /**
   * filterAgeMs: how long before the disconnect report the filter was built; lostAgoMs: how long
   * before the report events stopped (null: still connected); afterMs: when the slug is asked.
   */
  const rows: ReadonlyArray<readonly [name: string, filterAgeMs: number, lostAgoMs: number | null, outage: Outage, afterMs: number, answer: Answer]> = [
    ["connected: a 'no' stays trusted (events tell the filter of every create)", 0, null, "up", TTL + 100, false],
    ["disconnected: a 'no' is trusted within half a TTL", 0, 0, "fail", 50, false],
    ["disconnected, database down: no opinion once a TTL has passed", 0, 0, "fail", TTL + 100, undefined],
    ["disconnected, database hanging: no opinion once a TTL has passed", 0, 0, "hang", TTL + 100, undefined],
    ["disconnected, database up: rebuilt from the database, it knows the new slug", 0, 0, "up", TTL / 2 + 50, true],
    ["disconnect noticed late (events lost a TTL ago): no opinion at once", TTL + 20, TTL + 10, "fail", 0, undefined],
    ["disconnect noticed late, filter listed after the loss: still trusted", 0, TTL + 10, "fail", 0, false]
  ]
  it.each(rows)("%s", async (_name, filterAgeMs, lostAgoMs, outage, afterMs, answer) => {
    const { fake, cache } = await filterBuilt()
    fake.outage(outage)
    await sleep(filterAgeMs)
    if (lostAgoMs !== null) cache.setBusState({ connected: false, since: Date.now() - lostAgoMs })
    expect(cache.busConnected).toBe(lostAgoMs === null)
    await sleep(afterMs)
    cache.mayExist(HOST, "new") // a visit starts any rebuild that is due
    await sleep(20)
    expect(cache.mayExist(HOST, "new")).toBe(answer)
  })

  it("a listing that hangs is abandoned and tried again later", async () => {
    const { fake, cache } = setup({ ttlMs: 200, filterBuildTimeoutMs: 50 })
    fake.putLink(linkRecord("old"))
    fake.outage("hang")
    expect(cache.mayExist(HOST, "x")).toBeUndefined()
    fake.outage("up")
    await sleep(100) // abandoned after 50 ms; no new attempt within the retry delay (the TTL here)
    expect(cache.mayExist(HOST, "x")).toBeUndefined()
    expect(fake.lists()).toBe(1)
    await sleep(200)
    cache.mayExist(HOST, "x")
    await sleep(10)
    expect(cache.mayExist(HOST, "x")).toBe(false)
    expect(fake.lists()).toBe(2)
  })

  it("on reconnect: reset drops the filter, connected trusts the rebuilt one again", async () => {
    const { cache, fake } = await filterBuilt()
    fake.outage("fail")
    cache.setBusState({ connected: false, since: Date.now() })
    await sleep(TTL + 20)
    expect(cache.mayExist(HOST, "new")).toBeUndefined()
    fake.outage("up")
    cache.reset()
    cache.setBusState({ connected: true })
    expect(cache.mayExist(HOST, "new")).toBeUndefined() // rebuilding
    await sleep(10)
    expect(cache.mayExist(HOST, "new")).toBe(true)
    expect(cache.mayExist(HOST, "other")).toBe(false)
    expect(fake.lists()).toBeGreaterThanOrEqual(2)
  })
})
