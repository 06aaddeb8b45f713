import { LRUCache } from "lru-cache"
import type { ChangeEvent } from "../../shared/bus/events.ts"
import type { DomainRecord, LinkRecord } from "../../shared/links/linkRecord.ts"
import { compileDomain, type CompiledDomain, compileLink, type CompiledLink, compiledLinkBytes } from "../links/compile.ts"
import { SlugFilter } from "./slugFilter.ts"

/** A cached "no such link/domain", so scans of random slugs do not reach the database. */
export const MISSING = Symbol("missing")
type Missing = typeof MISSING
type LinkEntry = CompiledLink | Missing
type DomainEntry = CompiledDomain | Missing

export interface LinkSource {
  readonly link: (host: string, slug: string) => Promise<LinkRecord | null>
  /** Many links in one query, keyed `host\nslug`; when present, misses are batched per event-loop turn. */
  readonly links?: (keys: ReadonlyArray<{ readonly host: string; readonly slug: string }>) => Promise<Map<string, LinkRecord>>
  readonly domain: (host: string) => Promise<DomainRecord | null>
  /** Every slug on the domain, in chunks; absent when the source cannot list them. */
  readonly slugs?: (host: string) => AsyncIterable<ReadonlyArray<string>>
}

/** A domain's slug filter: building (events buffered) or ready, possibly with a rebuild under way. */
interface FilterState {
  filter: SlugFilter | null
  builtAt: number
  /** Slugs created while a build runs, added to its result. */
  pending: Array<string>
  building: boolean
  /** A reset while building makes this build's result unusable. */
  generation: number
}

export interface CacheOptions {
  readonly maxLinks: number
  readonly maxBytes: number
  readonly ttlMs: number
}

interface Inflight<T> {
  readonly promise: Promise<T>
  /** A change event arrived while loading: the result may predate it, so it is not cached. */
  stale: boolean
}

const linkKey = (host: string, slug: string) => `${host}\n${slug}`
const MAX_BATCH = 500
const MISSING_BYTES = 64

/**
 * The engine's view of links and domains: an LRU bounded by entries and bytes, with a TTL as the
 * backstop for missed events. A hit is synchronous; misses on the same key share one query.
 * Change events from the bus update or drop entries.
 */
export class LinkCache {
  private readonly links: LRUCache<string, LinkEntry>
  private readonly domains: LRUCache<string, DomainEntry>
  private readonly inflightLinks = new Map<string, Inflight<LinkEntry>>()
  private readonly inflightDomains = new Map<string, Inflight<DomainEntry>>()
  private readonly filters = new Map<string, FilterState>()
  private generation = 0
  /** Database queries made, for the benchmarks and tests that show coalescing. */
  queries = 0
  /** Lookups answered "no such slug" by a domain filter, without the database. */
  filtered = 0

  private readonly filterMaxAgeMs: number

  constructor(private readonly source: LinkSource, options: CacheOptions) {
    this.filterMaxAgeMs = options.ttlMs * 10
    this.links = new LRUCache<string, LinkEntry>({
      max: options.maxLinks,
      maxSize: options.maxBytes,
      sizeCalculation: (entry, key) => (entry === MISSING ? MISSING_BYTES : compiledLinkBytes(entry)) + key.length,
      ttl: options.ttlMs
    })
    this.domains = new LRUCache<string, DomainEntry>({ max: 100_000, ttl: options.ttlMs })
  }

  /** The cached link, MISSING when known not to exist, undefined when not cached. */
  peekLink(host: string, slug: string): LinkEntry | undefined {
    return this.links.get(linkKey(host, slug))
  }

  peekDomain(host: string): DomainEntry | undefined {
    return this.domains.get(host)
  }

  /**
   * False when the domain's slug filter proves the slug does not exist; undefined when there is
   * no ready filter (it is then built in the background for the next requests).
   */
  mayExist(host: string, slug: string): boolean | undefined {
    let state = this.filters.get(host)
    if (state === undefined) {
      state = { filter: null, builtAt: 0, pending: [], building: false, generation: this.generation }
      this.filters.set(host, state)
    }
    // Rebuilt in the background after a while, so even a missed event is corrected in bounded time.
    if (!state.building && (state.filter === null || Date.now() - state.builtAt > this.filterMaxAgeMs)) this.buildFilter(host, state)
    if (state.filter === null) return undefined
    if (state.filter.mayContain(slug)) return true
    this.filtered++
    return false
  }

  private buildFilter(host: string, state: FilterState): void {
    const list = this.source.slugs
    if (list === undefined) return
    state.building = true
    state.pending = []
    void (async () => {
      const slugs: Array<string> = []
      for await (const chunk of list(host)) for (const slug of chunk) slugs.push(slug)
      if (state.generation !== this.generation || this.filters.get(host) !== state) return
      const filter = SlugFilter.forCount(slugs.length + state.pending.length)
      for (const slug of slugs) filter.add(slug)
      for (const slug of state.pending) filter.add(slug)
      state.pending = []
      state.filter = filter
      state.builtAt = Date.now()
    })().catch(() => {
      // No new filter this time: the old one (if any) stays; lookups it cannot answer go to the database.
    }).finally(() => {
      state.building = false
    })
  }

  private noteSlug(host: string, slug: string): void {
    const state = this.filters.get(host)
    if (state === undefined) return
    if (state.building) state.pending.push(slug)
    if (state.filter !== null) {
      state.filter.add(slug)
      if (state.filter.saturated) this.filters.delete(host)
    }
  }

  loadDomain(host: string): Promise<DomainEntry> {
    return this.load(this.inflightDomains, this.domains, host, async () => {
      this.queries++
      const record = await this.source.domain(host)
      return record === null ? MISSING : compileDomain(record)
    })
  }

  loadLink(host: string, slug: string): Promise<LinkEntry> {
    return this.load(this.inflightLinks, this.links, linkKey(host, slug), async () => {
      if (this.source.links !== undefined) {
        const record = await this.batched(host, slug)
        return record === null ? MISSING : compileLink(record, this.intern)
      }
      this.queries++
      const record = await this.source.link(host, slug)
      return record === null ? MISSING : compileLink(record, this.intern)
    })
  }

  private batch: Array<{ host: string; slug: string; resolve: (r: LinkRecord | null) => void; reject: (e: unknown) => void }> = []

  /** Misses of one event-loop turn share a query (up to MAX_BATCH keys each). */
  private batched(host: string, slug: string): Promise<LinkRecord | null> {
    return new Promise((resolve, reject) => {
      if (this.batch.length === 0) setImmediate(() => this.flushBatch())
      this.batch.push({ host, slug, resolve, reject })
    })
  }

  private flushBatch(): void {
    const waiting = this.batch
    this.batch = []
    for (let start = 0; start < waiting.length; start += MAX_BATCH) {
      const chunk = waiting.slice(start, start + MAX_BATCH)
      this.queries++
      this.source.links!(chunk).then(
        (found) => {
          for (const w of chunk) w.resolve(found.get(linkKey(w.host, w.slug)) ?? null)
        },
        (error) => {
          for (const w of chunk) w.reject(error)
        }
      )
    }
  }

  private load<T>(inflight: Map<string, Inflight<T>>, cache: LRUCache<string, T & {}>, key: string, query: () => Promise<T>): Promise<T> {
    const pending = inflight.get(key)
    if (pending !== undefined) return pending.promise
    const entry: Inflight<T> = {
      stale: false,
      promise: query().then(
        (value) => {
          if (inflight.get(key) === entry) inflight.delete(key)
          if (!entry.stale) cache.set(key, value as T & {})
          return value
        },
        (error) => {
          if (inflight.get(key) === entry) inflight.delete(key)
          throw error
        }
      )
    }
    inflight.set(key, entry)
    return entry.promise
  }

  /** Applies one change event from the bus. */
  apply(event: ChangeEvent): void {
    switch (event.type) {
      case "link.upserted": {
        const key = linkKey(event.link.host, event.link.slug)
        this.markStale(this.inflightLinks, key)
        this.noteSlug(event.link.host, event.link.slug)
        // Only links someone asked for are kept: an update refreshes them, and a create replaces
        // the negative entry left by a visitor who tried the slug first.
        if (this.links.has(key)) this.links.set(key, compileLink(event.link, this.intern))
        return
      }
      case "link.deleted": {
        const key = linkKey(event.host, event.slug)
        this.markStale(this.inflightLinks, key)
        if (this.links.has(key)) this.links.set(key, MISSING)
        return
      }
      case "domain.upserted":
        this.markStale(this.inflightDomains, event.domain.host)
        if (this.domains.has(event.domain.host)) this.domains.set(event.domain.host, compileDomain(event.domain))
        return
      case "domain.deleted":
        this.markStale(this.inflightDomains, event.host)
        if (this.domains.has(event.host)) this.domains.set(event.host, MISSING)
        return
    }
  }

  /** A load under way may predate the event: it is not cached, and later requests query anew. */
  private markStale<T>(inflight: Map<string, Inflight<T>>, key: string) {
    const pending = inflight.get(key)
    if (pending !== undefined) {
      pending.stale = true
      inflight.delete(key)
    }
  }

  private readonly interned = new Map<string, string>()

  /** One copy of the strings many links share (the workspace id). */
  private readonly intern = (text: string): string => {
    const known = this.interned.get(text)
    if (known !== undefined) return known
    if (this.interned.size >= 100_000) this.interned.clear()
    this.interned.set(text, text)
    return text
  }

  /** After a bus reconnect events may have been missed: forget everything. */
  reset(): void {
    for (const pending of this.inflightLinks.values()) pending.stale = true
    for (const pending of this.inflightDomains.values()) pending.stale = true
    this.inflightLinks.clear()
    this.inflightDomains.clear()
    this.links.clear()
    this.domains.clear()
    this.generation++
    this.filters.clear()
  }

  get size(): { links: number; domains: number; bytes: number; filters: number } {
    return { links: this.links.size, domains: this.domains.size, bytes: this.links.calculatedSize, filters: this.filters.size }
  }
}
