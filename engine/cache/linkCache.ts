import { LRUCache } from "lru-cache"
import type { ChangeEvent } from "../../shared/bus/events.ts"
import type { DomainRecord, LinkRecord } from "../../shared/links/linkRecord.ts"
import { compileDomain, type CompiledDomain, compileLink, type CompiledLink } from "../links/compile.ts"

/** A cached "no such link/domain", so scans of random slugs do not reach the database. */
export const MISSING = Symbol("missing")
type Missing = typeof MISSING
type LinkEntry = CompiledLink | Missing
type DomainEntry = CompiledDomain | Missing

export interface LinkSource {
  readonly link: (host: string, slug: string) => Promise<LinkRecord | null>
  readonly domain: (host: string) => Promise<DomainRecord | null>
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
  /** Database queries made, for the benchmarks and tests that show coalescing. */
  queries = 0

  constructor(private readonly source: LinkSource, options: CacheOptions) {
    this.links = new LRUCache<string, LinkEntry>({
      max: options.maxLinks,
      maxSize: options.maxBytes,
      sizeCalculation: (entry, key) => (entry === MISSING ? MISSING_BYTES : entry.bytes) + key.length,
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

  loadDomain(host: string): Promise<DomainEntry> {
    return this.load(this.inflightDomains, this.domains, host, async () => {
      const record = await this.source.domain(host)
      return record === null ? MISSING : compileDomain(record)
    })
  }

  loadLink(host: string, slug: string): Promise<LinkEntry> {
    return this.load(this.inflightLinks, this.links, linkKey(host, slug), async () => {
      const record = await this.source.link(host, slug)
      return record === null ? MISSING : compileLink(record)
    })
  }

  private load<T>(inflight: Map<string, Inflight<T>>, cache: LRUCache<string, T & {}>, key: string, query: () => Promise<T>): Promise<T> {
    const pending = inflight.get(key)
    if (pending !== undefined) return pending.promise
    this.queries++
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
        // Only links someone asked for are kept: an update refreshes them, and a create replaces
        // the negative entry left by a visitor who tried the slug first.
        if (this.links.has(key)) this.links.set(key, compileLink(event.link))
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

  /** After a bus reconnect events may have been missed: forget everything. */
  reset(): void {
    for (const pending of this.inflightLinks.values()) pending.stale = true
    for (const pending of this.inflightDomains.values()) pending.stale = true
    this.inflightLinks.clear()
    this.inflightDomains.clear()
    this.links.clear()
    this.domains.clear()
  }

  get size(): { links: number; domains: number; bytes: number } {
    return { links: this.links.size, domains: this.domains.size, bytes: this.links.calculatedSize }
  }
}
