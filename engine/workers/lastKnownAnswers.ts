import { LRUCache } from "lru-cache"
import type { ChangeEvent } from "../../shared/bus/events.ts"
import type { DomainRecord, LinkRecord } from "../../shared/links/linkRecord.ts"

export interface LastKnownBounds {
  /** Links (and slugs known not to exist) kept: the engine's whole cache bound, not one worker's share. */
  readonly maxLinks: number
  readonly maxBytes: number
}

/** An answer, and when it was asked for or heard of (see `learn`). */
interface Known<T> {
  readonly record: T | null
  readonly at: number
}

type HostSlug = { readonly host: string; readonly slug: string }

const MISSING_BYTES = 64
/** As many as one worker's cache keeps. */
const MAX_DOMAINS = 100_000

const linkKey = ({ host, slug }: HostSlug) => [host, slug].join("\n")

/** Rough size of a record in memory (V8 strings, objects and arrays), for the byte bound. */
const recordBytes = (value: unknown): number => {
  if (typeof value === "string") return 16 + value.length
  if (Array.isArray(value)) return value.reduce((bytes: number, item) => bytes + 8 + recordBytes(item), 16)
  if (typeof value === "object" && value !== null) return Object.values(value).reduce((bytes: number, item) => bytes + 16 + recordBytes(item), 24)
  return 0
}

const add = (counts: Map<string, number>, key: string, by: number) => {
  const count = (counts.get(key) ?? 0) + by
  if (count > 0) counts.set(key, count)
  else counts.delete(key)
}

/**
 * The engine's last known answer for every link and domain its HTTP workers asked about: what the
 * database last said (found, or known not to exist), kept current by the change events. Each
 * worker's cache keeps its own last known answers for a database outage, but a visitor's
 * connection lands on any worker, and what the worker that answered before knew must not be
 * lost to the others: a worker whose load fails with no answer of its own asks this one, on the
 * main thread, which sees every worker's misses. Only misses and events touch it, never a cache
 * hit. Bounded like the caches (least recently used first); a worker cold after a restart, an
 * eviction, or a load the main thread could not pass on (a change came in while it loaded) is
 * covered alike.
 */
export class LastKnownAnswers {
  private readonly links: LRUCache<string, Known<LinkRecord>>
  private readonly domains: LRUCache<string, Known<DomainRecord>>
  /** Keys with loads under way, counted: an event for one is kept though nothing was known before. */
  private readonly loadingLinks = new Map<string, number>()
  private readonly loadingDomains = new Map<string, number>()
  /**
   * Ticks at each load begun and each event: a load's answer loses to an event for its key that
   * came in after the load began, and to a load begun after it.
   */
  private clock = 0

  constructor(private readonly bounds: LastKnownBounds) {
    // No `max` (it would allocate slots for every entry up front); `bound()` keeps the entry count.
    this.links = new LRUCache<string, Known<LinkRecord>>({
      maxSize: bounds.maxBytes,
      sizeCalculation: (known, key) => key.length + (known.record === null ? MISSING_BYTES : recordBytes(known.record))
    })
    this.domains = new LRUCache<string, Known<DomainRecord>>({ max: MAX_DOMAINS })
  }

  /** A load of these links from the database: what it finds is recorded (the keys it does not find do not exist). */
  watchLinks(keys: ReadonlyArray<HostSlug>, query: Promise<Map<string, LinkRecord>>): void {
    const begun = ++this.clock
    const ids = keys.map(linkKey)
    for (const id of ids) add(this.loadingLinks, id, 1)
    const settle = (found: Map<string, LinkRecord> | undefined) => {
      for (const id of ids) {
        add(this.loadingLinks, id, -1)
        if (found !== undefined) this.learn(this.links, id, found.get(id) ?? null, begun)
      }
      this.bound()
    }
    query.then(settle, () => settle(undefined))
  }

  /** A load of a domain from the database: what it finds is recorded. */
  watchDomain(host: string, query: Promise<DomainRecord | null>): void {
    const begun = ++this.clock
    add(this.loadingDomains, host, 1)
    const settle = (found: DomainRecord | null | undefined) => {
      add(this.loadingDomains, host, -1)
      if (found !== undefined) this.learn(this.domains, host, found, begun)
    }
    query.then(settle, () => settle(undefined))
  }

  /** One change event: updates a key already known or being loaded (keys nobody asked for are not added). */
  apply(event: ChangeEvent): void {
    switch (event.type) {
      case "link.upserted":
        return this.heard(this.links, this.loadingLinks, linkKey(event.link), event.link)
      case "link.deleted":
        return this.heard(this.links, this.loadingLinks, linkKey(event), null)
      case "domain.upserted":
        return this.heard(this.domains, this.loadingDomains, event.domain.host, event.domain)
      case "domain.deleted":
        return this.heard(this.domains, this.loadingDomains, event.host, null)
    }
  }

  /** The last known link (null: known not to exist), or undefined when nothing is known. */
  link(host: string, slug: string): LinkRecord | null | undefined {
    return this.links.get(linkKey({ host, slug }))?.record
  }

  domain(host: string): DomainRecord | null | undefined {
    return this.domains.get(host)?.record
  }

  get size(): { readonly links: number; readonly domains: number; readonly bytes: number } {
    return { links: this.links.size, domains: this.domains.size, bytes: this.links.calculatedSize }
  }

  /**
   * A load's answer, unless an event for the key came in after the load began (the answer may
   * predate it) or a load begun later has answered already.
   */
  private learn<T>(cache: LRUCache<string, Known<T>>, key: string, record: T | null, begun: number): void {
    const known = cache.peek(key)
    if (known === undefined || known.at < begun) cache.set(key, { record, at: begun })
  }

  private heard<T>(cache: LRUCache<string, Known<T>>, loading: Map<string, number>, key: string, record: T | null): void {
    const at = ++this.clock
    if (!cache.has(key) && !loading.has(key)) return
    cache.set(key, { record, at })
    this.bound()
  }

  private bound(): void {
    while (this.links.size > this.bounds.maxLinks) this.links.pop()
  }
}
