import type { BusState } from "../../shared/bus/bus.ts"
import type { ChangeEvent } from "../../shared/bus/events.ts"
import type { DomainRecord, LinkRecord } from "../../shared/links/linkRecord.ts"
import { compileDomain, compileLink } from "../links/compile.ts"
import { BlockingLoads, type BlockingSource } from "./blockingMiss.ts"
import { EntryLoads } from "./entryLoads.ts"
import type { LinkSource } from "./linkSource.ts"
import { type DomainEntry, type LinkEntry, linkKey, LinkStore, MISSING, type Missing } from "./linkStore.ts"
import { MissBatcher } from "./missBatcher.ts"
import { SlugFilters } from "./slugFilters.ts"
import { SourceGuard } from "./sourceGuard.ts"
import { StaleIfError } from "./staleIfError.ts"
import { stringInterner } from "./stringInterner.ts"

export { MISSING } from "./linkStore.ts"

export interface CacheOptions {
  readonly maxLinks: number
  readonly maxBytes: number
  readonly ttlMs: number
  /** A link or domain query with no answer after this long fails (default 2 s). */
  readonly loadTimeoutMs?: number
  /** Queries waiting for an answer past which more fail at once (default 256). */
  readonly maxOutstandingLoads?: number
  /** A slug listing for a filter not done after this long is abandoned (default 30 s). */
  readonly filterBuildTimeoutMs?: number
}

/**
 * The engine's view of links and domains (LinkStore: an LRU bounded by entries and bytes, with a
 * TTL as the backstop for missed events). A hit is synchronous; misses on the same key share one
 * load (EntryLoads), link misses of one event-loop turn one query (MissBatcher); a domain's slug
 * filter answers "no such slug" without a query (SlugFilters); a failing database is answered
 * from the last known entries (StaleIfError). Change events from the bus update or drop entries.
 * With a BlockingSource (an HTTP worker), a miss can be answered before its request handler
 * returns (blockingMiss.ts).
 */
export class LinkCache {
  private readonly store: LinkStore
  private readonly linkLoads: EntryLoads<LinkEntry>
  private readonly domainLoads: EntryLoads<DomainEntry>
  private readonly filters: SlugFilters
  private readonly guard: SourceGuard
  private readonly lastKnown: StaleIfError
  private readonly batcher: MissBatcher | undefined
  private readonly blocking = new BlockingLoads()
  /** One copy of the strings many links share (the workspace id). */
  private readonly intern = stringInterner(100_000)
  private readonly compile = (record: LinkRecord) => compileLink(record, this.intern)
  /** Link lookups the cache answered (a link, or a slug known not to exist). */
  hits = 0
  /** Database queries made asynchronously (`queries` adds the blocking ones). */
  private loads = 0

  constructor(private readonly source: LinkSource, options: CacheOptions, private readonly blockingSource?: BlockingSource) {
    const retryMs = Math.min(options.ttlMs, 5_000)
    this.store = new LinkStore(options)
    this.guard = new SourceGuard({ timeoutMs: options.loadTimeoutMs ?? 2_000, maxOutstanding: options.maxOutstandingLoads ?? 256 })
    this.lastKnown = new StaleIfError(this.guard, retryMs)
    this.linkLoads = new EntryLoads(this.store.links, this.lastKnown)
    this.domainLoads = new EntryLoads(this.store.domains, this.lastKnown)
    this.filters = new SlugFilters(source.slugs, { ttlMs: options.ttlMs, buildTimeoutMs: options.filterBuildTimeoutMs ?? 30_000, retryMs })
    const links = source.links
    this.batcher = links === undefined ? undefined : new MissBatcher((keys) => this.query(() => links(keys)))
  }

  /** The cached link, MISSING when known not to exist, undefined when not cached. */
  peekLink(host: string, slug: string): LinkEntry | undefined {
    const entry = this.store.links.get(linkKey(host, slug))
    if (entry !== undefined) this.hits++
    return entry
  }

  peekDomain(host: string): DomainEntry | undefined {
    return this.store.domains.get(host)
  }

  /**
   * False when the domain's slug filter proves the slug does not exist; undefined when there is
   * no ready filter (it is then built in the background for the next requests).
   */
  mayExist(host: string, slug: string): boolean | undefined {
    return this.filters.mayExist(host, slug)
  }

  /**
   * Starts building the domain's slug filter if there is none yet: another HTTP worker built one,
   * so visitors of this domain will reach this worker too (and during a database outage a filter
   * built now is what still answers "no such slug").
   */
  warmFilter(host: string): void {
    this.filters.warm(host)
  }

  /** Rejects with SourceUnavailable when the database fails and there is no last known answer. */
  loadDomain(host: string): Promise<DomainEntry> {
    return this.domainLoads.load(
      host,
      () => this.query(() => this.source.domain(host)).then((record) => (record === null ? MISSING : compileDomain(record))),
      () => this.source.lastKnownDomain?.(host).then((record) => entryOf(record, compileDomain))
    )
  }

  /**
   * Rejects with SourceUnavailable when the database fails and there is no last known answer
   * (an entry, or the domain's slug filter saying "no" even when too old to be trusted otherwise).
   */
  loadLink(host: string, slug: string): Promise<LinkEntry> {
    return this.linkLoads.load(
      linkKey(host, slug),
      async () => {
        const record = this.batcher !== undefined ? await this.batcher.load(host, slug) : await this.query(() => this.source.link(host, slug))
        return record === null ? MISSING : this.compile(record)
      },
      () => this.source.lastKnownLink?.(host, slug).then((record) => entryOf(record, this.compile))
    ).catch((error: unknown) => this.lastKnown.missingByFilter(error, this.filters.filterOf(host), slug))
  }

  /**
   * A domain miss answered before the request handler returns (blockingMiss.ts). Undefined when
   * this cache cannot block (not an HTTP worker), while the database is failing, when a load of
   * the key is under way, or when no answer came in time: then load asynchronously.
   */
  loadDomainNow(host: string): DomainEntry | undefined {
    const blocking = this.blockingSource
    if (blocking === undefined) return undefined
    return this.blocking.load(this.store.domains, this.domainLoads, this.guard.down, host, (budgetMs) => entryOf(blocking.domainNow(host, budgetMs), compileDomain))
  }

  /** As loadDomainNow, for a link. */
  loadLinkNow(host: string, slug: string): LinkEntry | undefined {
    const blocking = this.blockingSource
    if (blocking === undefined) return undefined
    return this.blocking.load(this.store.links, this.linkLoads, this.guard.down, linkKey(host, slug), (budgetMs) => entryOf(blocking.linkNow(host, slug, budgetMs), this.compile))
  }

  /** Applies one change event from the bus. */
  apply(event: ChangeEvent): void {
    this.blocking.changed()
    switch (event.type) {
      case "link.upserted": {
        const key = linkKey(event.link.host, event.link.slug)
        this.linkLoads.markStale(key)
        this.filters.noteSlug(event.link.host, event.link.slug)
        // Only links someone asked for are kept: an update refreshes them, and a create replaces
        // the negative entry left by a visitor who tried the slug first.
        this.store.links.replace(key, () => this.compile(event.link))
        return
      }
      case "link.deleted": {
        const key = linkKey(event.host, event.slug)
        this.linkLoads.markStale(key)
        this.store.links.replace(key, () => MISSING)
        return
      }
      case "domain.upserted":
        this.domainLoads.markStale(event.domain.host)
        this.store.domains.replace(event.domain.host, () => compileDomain(event.domain))
        return
      case "domain.deleted":
        this.domainLoads.markStale(event.host)
        this.store.domains.replace(event.host, () => MISSING)
        return
    }
  }

  /**
   * Links and domains another worker loaded from the database just now: taken unless this cache
   * holds a live entry or is loading the key itself (its own answer is as new).
   */
  prefill(loaded: {
    readonly links: ReadonlyArray<LinkRecord>
    readonly missingLinks: ReadonlyArray<{ readonly host: string; readonly slug: string }>
    readonly domains: ReadonlyArray<DomainRecord>
    readonly missingDomains: ReadonlyArray<string>
  }): void {
    const { links, domains } = this.store
    for (const link of loaded.links) {
      const key = linkKey(link.host, link.slug)
      if (links.has(key) || this.linkLoads.loading(key)) continue
      this.filters.noteSlug(link.host, link.slug)
      links.set(key, this.compile(link))
    }
    for (const { host, slug } of loaded.missingLinks) {
      const key = linkKey(host, slug)
      if (!links.has(key) && !this.linkLoads.loading(key)) links.set(key, MISSING)
    }
    for (const domain of loaded.domains) {
      if (!domains.has(domain.host) && !this.domainLoads.loading(domain.host)) domains.set(domain.host, compileDomain(domain))
    }
    for (const host of loaded.missingDomains) {
      if (!domains.has(host) && !this.domainLoads.loading(host)) domains.set(host, MISSING)
    }
  }

  /** The bus's connection state: while disconnected, what was derived from it ages (see mayExist). */
  setBusState(state: BusState): void {
    this.filters.setBusState(state)
  }

  get busConnected(): boolean {
    return this.filters.busConnected
  }

  /**
   * After a bus reconnect events may have been missed: every entry expires (each is reloaded on
   * its next visit, and stays only as a last known answer for a database outage), and the slug
   * filters are dropped and rebuilt.
   */
  reset(): void {
    this.blocking.changed()
    this.linkLoads.markAllStale()
    this.domainLoads.markAllStale()
    this.store.expireAll()
    this.filters.reset()
  }

  /** Database queries made, for the benchmarks and tests that show coalescing. */
  get queries(): number {
    return this.loads + this.blocking.count
  }

  /** Lookups answered "no such slug" by a domain filter, without the database. */
  get filtered(): number {
    return this.filters.filtered
  }

  /** Lookups the database failed (or was failing) for, answered with the last known entry instead. */
  get staleAnswers(): number {
    return this.lastKnown.answers
  }

  /** Misses answered by blocking for the query (loadLinkNow, loadDomainNow), included in `queries`. */
  get blockingLoads(): number {
    return this.blocking.count
  }

  /** Database calls that failed or timed out. */
  get sourceFailures(): number {
    return this.guard.failures
  }

  /** Entries and bytes held; `filters` counts the domains whose slug filter is ready to answer. */
  get size(): { links: number; domains: number; bytes: number; filters: number } {
    return { links: this.store.links.size, domains: this.store.domains.size, bytes: this.store.links.bytes, filters: this.filters.ready }
  }

  /** One database call, through the guard that bounds it in time and number. */
  private query<T>(call: () => Promise<T>): Promise<T> {
    return this.guard.run(() => {
      this.loads++
      return call()
    })
  }
}

/** A record from the source as a cache entry (null: MISSING), undefined passed through. */
const entryOf = <R, C>(record: R | null | undefined, compile: (record: R) => C): C | Missing | undefined =>
  record === undefined ? undefined : record === null ? MISSING : compile(record)
