import { afterEach, describe, expect, it, vi } from "vitest"
import { type CacheOptions, LinkCache, MISSING } from "../../engine/cache/linkCache.ts"
import type { BlockingSource } from "../../engine/cache/blockingMiss.ts"
import type { LinkSource } from "../../engine/cache/linkSource.ts"
import type { DomainRecord, LinkRecord } from "../../shared/links/linkRecord.ts"
import { linkRecord as baseRecord } from "../support/linkRecord.ts"

/**
 * Misses answered before the request handler returns (engine/cache/blockingMiss.ts, through LinkCache.loadLinkNow / loadDomainNow): an
 * HTTP worker blocks for the main thread's query so that a request pipelined behind the miss is
 * answered too. A fake source whose blocking calls answer, time out, fail, or see change events
 * arrive while they wait; a fake clock for the blocking budget.
 */

const HOST = "go.example.com"
const OPTIONS: CacheOptions = { maxLinks: 1000, maxBytes: 10_000_000, ttlMs: 60_000 }
const record = (slug: string): LinkRecord => baseRecord({ id: `lnk_${slug}`, host: HOST, slug, url: `https://example.com/${slug}` })
const domain: DomainRecord = { id: "dom_1", workspaceId: "ws_1", host: HOST, status: "verified", rootRedirectUrl: null, notFoundUrl: null, expiredUrl: null }

/** What a blocking call does: answer (a record or null), time out (undefined), or fail. */
type Behaviour = LinkRecord | null | undefined | "fail"

let clock = 1_000_000
afterEach(() => {
  vi.restoreAllMocks()
})

const setup = (options: { blocking?: boolean; behaviour?: Behaviour; msPerCall?: number; duringCall?: (cache: LinkCache) => void } = {}) => {
  clock = 1_000_000
  vi.spyOn(performance, "now").mockImplementation(() => clock)
  let behaviour: Behaviour = options.behaviour === undefined && !("behaviour" in options) ? record("a") : options.behaviour
  const calls = { linkNow: 0, domainNow: 0, link: 0 }
  let failAsync = false
  let cache: LinkCache
  const blockingAnswer = <T>(value: T | null | undefined | "fail"): T | null | undefined => {
    clock += options.msPerCall ?? 1
    options.duringCall?.(cache)
    if (value === "fail") throw new Error("connect ECONNREFUSED 127.0.0.1:5432")
    return value
  }
  const source: LinkSource = {
    link: () => {
      calls.link++
      return failAsync ? Promise.reject(new Error("connect ECONNREFUSED")) : Promise.resolve(null)
    },
    domain: () => Promise.resolve(domain)
  }
  const blocking: BlockingSource | undefined = options.blocking === false ? undefined : {
    linkNow: () => {
      calls.linkNow++
      return blockingAnswer(behaviour)
    },
    domainNow: () => {
      calls.domainNow++
      return blockingAnswer<DomainRecord>(domain)
    }
  }
  cache = new LinkCache(source, OPTIONS, blocking)
  return {
    cache,
    calls,
    answer: (next: Behaviour) => {
      behaviour = next
    },
    failAsync: (on: boolean) => {
      failAsync = on
    }
  }
}

const urlOf = (entry: ReturnType<LinkCache["peekLink"]>) => (entry === undefined ? "uncached" : entry === MISSING ? "MISSING" : entry.url)

describe("a blocking load", () => {
  it.each<readonly [string, Behaviour, string, string]>([
    ["a record: answered and cached", record("a"), "https://example.com/a", "https://example.com/a"],
    ["no such link: MISSING, cached", null, "MISSING", "MISSING"],
    ["no answer within the budget: left to the asynchronous load", undefined, "uncached", "uncached"],
    ["a failed query: left to the asynchronous load (its guard counts and falls back)", "fail", "uncached", "uncached"]
  ])("%s", (_name, behaviour, answered, cached) => {
    const { cache, calls } = setup({ behaviour })
    expect(urlOf(cache.loadLinkNow(HOST, "a"))).toBe(answered)
    expect(urlOf(cache.peekLink(HOST, "a"))).toBe(cached)
    expect({ calls: calls.linkNow, blockingLoads: cache.blockingLoads, queries: cache.queries }).toEqual({ calls: 1, blockingLoads: 1, queries: 1 })
  })

  it("a domain: answered and cached", () => {
    const { cache, calls } = setup()
    const loaded = cache.loadDomainNow(HOST)
    expect(loaded === MISSING || loaded === undefined ? loaded : loaded.record.host).toBe(HOST)
    expect(cache.peekDomain(HOST)).toBe(loaded)
    expect(calls.domainNow).toBe(1)
  })

  it("a source that cannot block (on the main thread): nothing asked", () => {
    const { cache, calls } = setup({ blocking: false })
    expect(cache.loadLinkNow(HOST, "a")).toBeUndefined()
    expect(cache.loadDomainNow(HOST)).toBeUndefined()
    expect(calls).toEqual({ linkNow: 0, domainNow: 0, link: 0 })
  })

  it("a change event handled while it waited: served once, not cached (the answer may predate it)", () => {
    const { cache } = setup({ duringCall: (c) => c.apply({ type: "link.upserted", link: record("other") }) })
    expect(urlOf(cache.loadLinkNow(HOST, "a"))).toBe("https://example.com/a")
    expect(urlOf(cache.peekLink(HOST, "a"))).toBe("uncached")
  })

  it("a reset while it waited: the same", () => {
    const { cache } = setup({ duringCall: (c) => c.reset() })
    expect(urlOf(cache.loadLinkNow(HOST, "a"))).toBe("https://example.com/a")
    expect(urlOf(cache.peekLink(HOST, "a"))).toBe("uncached")
  })

  it("a load of the key already under way: not asked again, the caller waits for that one", async () => {
    const { cache, calls } = setup()
    const loading = cache.loadLink(HOST, "a")
    expect(cache.loadLinkNow(HOST, "a")).toBeUndefined()
    expect(calls.linkNow).toBe(0)
    await loading
  })

  it("while the database is failing: nothing blocks (the last known answer comes from loadLink at once)", async () => {
    const { cache, calls, failAsync } = setup()
    failAsync(true)
    await expect(cache.loadLink(HOST, "b")).rejects.toThrow()
    expect(cache.loadLinkNow(HOST, "a")).toBeUndefined()
    expect(calls.linkNow).toBe(0)
  })
})

describe("the blocking budget: at most 100 ms of a second", () => {
  it("past it, misses load asynchronously until the next second", () => {
    const { cache, calls } = setup({ msPerCall: 30 })
    const answered = ["s1", "s2", "s3", "s4", "s5"].map((slug) => cache.loadLinkNow(HOST, slug) !== undefined)
    // 30 ms each: after four the second's 100 ms are spent.
    expect(answered).toEqual([true, true, true, true, false])
    expect(calls.linkNow).toBe(4)
    clock = (Math.floor(clock / 1000) + 1) * 1000
    expect(cache.loadLinkNow(HOST, "s6")).not.toBeUndefined()
    expect(calls.linkNow).toBe(5)
  })

  it("quick answers: a hundred in a second all block", () => {
    const { cache } = setup({ msPerCall: 0.5 })
    const answered = Array.from({ length: 100 }, (_, i) => cache.loadLinkNow(HOST, `q${i}`) !== undefined)
    expect(answered.every(Boolean)).toBe(true)
  })
})
