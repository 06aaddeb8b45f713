import { describe, expect, it } from "vitest"
import type { DomainRecord, LinkRecord } from "../../shared/links/linkRecord.ts"
import { LastKnownAnswers } from "../../engine/workers/lastKnownAnswers.ts"
import { linkRecord as baseRecord } from "../support/linkRecord.ts"

/**
 * The main thread's last known answers (engine/workers/lastKnownAnswers.ts): what the database
 * said to any HTTP worker's miss, kept current by change events, for a worker with no answer of
 * its own during an outage. The loads are promises the test settles, so events can come in
 * between a load's start and its answer.
 */

const HOST = "go.example.com"
const link = (slug: string, version = 1): LinkRecord => baseRecord({ id: `lnk_${slug}`, host: HOST, slug, url: `https://example.com/${slug}-v${version}` })
const domain = (host: string, version = 1): DomainRecord => ({
  id: `dom_${host}`,
  workspaceId: "ws_1",
  host,
  status: "verified",
  rootRedirectUrl: `https://example.com/root-v${version}`,
  notFoundUrl: null,
  expiredUrl: null
})

const deferred = <T>() => {
  let resolve!: (value: T) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}
const settled = () => new Promise((r) => setTimeout(r, 0))

/** A store and helpers: loads begun now and answered later, events, and what is known of a key as text. */
const setup = (bounds = { maxLinks: 1000, maxBytes: 10_000_000 }) => {
  const store = new LastKnownAnswers(bounds)
  return {
    store,
    /** Begins a load of these slugs; the returned function answers it with the records found (or fails it). */
    loadLinks: (...slugs: Array<string>) => {
      const query = deferred<Map<string, LinkRecord>>()
      store.watchLinks(slugs.map((slug) => ({ host: HOST, slug })), query.promise)
      return async (found: ReadonlyArray<LinkRecord> | "fail") => {
        if (found === "fail") query.reject(new Error("connect ECONNREFUSED"))
        else query.resolve(new Map(found.map((record) => [`${record.host}\n${record.slug}`, record])))
        await settled()
      }
    },
    loadDomain: (host: string) => {
      const query = deferred<DomainRecord | null>()
      store.watchDomain(host, query.promise)
      return async (found: DomainRecord | null | "fail") => {
        if (found === "fail") query.reject(new Error("connect ECONNREFUSED"))
        else query.resolve(found)
        await settled()
      }
    },
    linkOf: (slug: string) => {
      const known = store.link(HOST, slug)
      return known === undefined ? "unknown" : known === null ? "missing" : known.url
    },
    domainOf: (host: string) => {
      const known = store.domain(host)
      return known === undefined ? "unknown" : known === null ? "missing" : known.rootRedirectUrl
    }
  }
}
type Ctx = ReturnType<typeof setup>

describe("what the database answered", () => {
  const rows: ReadonlyArray<readonly [name: string, steps: (ctx: Ctx) => Promise<void>, slug: string, known: string]> = [
    ["a link found", async ({ loadLinks }) => loadLinks("a")([link("a")]), "a", "https://example.com/a-v1"],
    ["a key of the load that was not found: known not to exist", async ({ loadLinks }) => loadLinks("a", "b")([link("a")]), "b", "missing"],
    ["a key never asked for", async ({ loadLinks }) => loadLinks("a")([link("a")]), "c", "unknown"],
    ["a failed load: nothing", async ({ loadLinks }) => loadLinks("a")("fail"), "a", "unknown"],
    ["a failed load keeps the earlier answer", async ({ loadLinks }) => {
      await loadLinks("a")([link("a")])
      await loadLinks("a")("fail")
    }, "a", "https://example.com/a-v1"],
    ["a later load's answer replaces it", async ({ loadLinks }) => {
      await loadLinks("a")([link("a")])
      await loadLinks("a")([link("a", 2)])
    }, "a", "https://example.com/a-v2"],
    ["a link deleted since: the later load finds nothing", async ({ loadLinks }) => {
      await loadLinks("a")([link("a")])
      await loadLinks("a")([])
    }, "a", "missing"]
  ]
  it.each(rows)("%s", async (_name, steps, slug, known) => {
    const ctx = setup()
    await steps(ctx)
    expect(ctx.linkOf(slug)).toBe(known)
  })

  it("domains alike: found, known not to exist, a failed load", async () => {
    const { loadDomain, domainOf } = setup()
    await loadDomain("a.example")(domain("a.example"))
    await loadDomain("b.example")(null)
    await loadDomain("c.example")("fail")
    expect([domainOf("a.example"), domainOf("b.example"), domainOf("c.example")]).toEqual(["https://example.com/root-v1", "missing", "unknown"])
  })
})

describe("change events", () => {
  const rows: ReadonlyArray<readonly [name: string, steps: (ctx: Ctx) => Promise<void>, slug: string, known: string]> = [
    ["an update of a known link", async ({ store, loadLinks }) => {
      await loadLinks("a")([link("a")])
      store.apply({ type: "link.upserted", link: link("a", 2) })
    }, "a", "https://example.com/a-v2"],
    ["a delete of a known link", async ({ store, loadLinks }) => {
      await loadLinks("a")([link("a")])
      store.apply({ type: "link.deleted", id: "lnk_a", host: HOST, slug: "a" })
    }, "a", "missing"],
    ["a create of a slug known not to exist", async ({ store, loadLinks }) => {
      await loadLinks("a")([])
      store.apply({ type: "link.upserted", link: link("a") })
    }, "a", "https://example.com/a-v1"],
    ["a link nobody asked for is not added", async ({ store }) => store.apply({ type: "link.upserted", link: link("a") }), "a", "unknown"],
    ["an event during a link's first load wins over the load's (older) answer", async ({ store, loadLinks }) => {
      const answer = loadLinks("a")
      store.apply({ type: "link.upserted", link: link("a", 2) })
      await answer([link("a", 1)])
    }, "a", "https://example.com/a-v2"],
    ["a delete during a reload wins", async ({ store, loadLinks }) => {
      await loadLinks("a")([link("a")])
      const answer = loadLinks("a")
      store.apply({ type: "link.deleted", id: "lnk_a", host: HOST, slug: "a" })
      await answer([link("a")])
    }, "a", "missing"],
    ["an event for another key does not spoil a load", async ({ store, loadLinks }) => {
      const answer = loadLinks("a")
      store.apply({ type: "link.upserted", link: link("b", 2) })
      await answer([link("a")])
    }, "a", "https://example.com/a-v1"],
    ["a load begun after the event is newer than it", async ({ store, loadLinks }) => {
      await loadLinks("a")([link("a")])
      store.apply({ type: "link.upserted", link: link("a", 2) })
      await loadLinks("a")([link("a", 3)])
    }, "a", "https://example.com/a-v3"],
    ["of two loads, the one begun later wins even when it answers first", async ({ loadLinks }) => {
      await loadLinks("a")([link("a")])
      const earlier = loadLinks("a")
      const later = loadLinks("a")
      await later([link("a", 3)])
      await earlier([link("a", 2)])
    }, "a", "https://example.com/a-v3"],
    ["once no load is under way, an event for a key never known is not added", async ({ store, loadLinks }) => {
      await loadLinks("a")("fail")
      store.apply({ type: "link.upserted", link: link("a", 2) })
    }, "a", "unknown"]
  ]
  it.each(rows)("%s", async (_name, steps, slug, known) => {
    const ctx = setup()
    await steps(ctx)
    expect(ctx.linkOf(slug)).toBe(known)
  })

  it("domains alike: an update, a delete, an event during the first load, a domain nobody asked for", async () => {
    const { store, loadDomain, domainOf } = setup()
    await loadDomain("a.example")(domain("a.example"))
    store.apply({ type: "domain.upserted", domain: domain("a.example", 2) })
    await loadDomain("b.example")(domain("b.example"))
    store.apply({ type: "domain.deleted", id: "dom_b.example", host: "b.example" })
    const answer = loadDomain("c.example")
    store.apply({ type: "domain.upserted", domain: domain("c.example", 2) })
    await answer(domain("c.example"))
    store.apply({ type: "domain.upserted", domain: domain("d.example") })
    expect(["a", "b", "c", "d"].map((name) => domainOf(`${name}.example`))).toEqual([
      "https://example.com/root-v2",
      "missing",
      "https://example.com/root-v2",
      "unknown"
    ])
  })
})

describe("bounds", () => {
  it("keeps at most maxLinks, the least recently used going first (a lookup is a use)", async () => {
    const { store, loadLinks, linkOf } = setup({ maxLinks: 2, maxBytes: 10_000_000 })
    await loadLinks("a")([link("a")])
    await loadLinks("b")([])
    linkOf("a")
    await loadLinks("c")([link("c")])
    expect(["a", "b", "c"].map(linkOf)).toEqual(["https://example.com/a-v1", "unknown", "https://example.com/c-v1"])
    expect(store.size.links).toBe(2)
  })

  it("keeps the byte bound", async () => {
    const { store, loadLinks } = setup({ maxLinks: 1000, maxBytes: 5_000 })
    for (let i = 0; i < 100; i++) await loadLinks(`s${i}`)([link(`s${i}`)])
    expect(store.size.bytes).toBeLessThanOrEqual(5_000)
    expect(store.size.links).toBeGreaterThan(5)
    expect(store.size.links).toBeLessThan(100)
  })
})
