import { LRUCache } from "lru-cache"
import type { ChangeEvent } from "../../shared/bus/events.ts"
import type { DomainRecord, LinkRecord } from "../../shared/links/linkRecord.ts"
import { compileDomain, type CompiledDomain, compileLink, type CompiledLink, compiledLinkBytes } from "../links/compile.ts"
import type { BusState } from "../../shared/bus/bus.ts"
import type { LinkSource } from "./linkSource.ts"
import { SlugFilter } from "./slugFilter.ts"
import { stringInterner } from "./stringInterner.ts"
import { SourceGuard, SourceUnavailable } from "./sourceGuard.ts"

/** A cached "no such link/domain", so scans of random slugs do not reach the database. */
export const MISSING = Symbol("missing")
type Missing = typeof MISSING
type LinkEntry = CompiledLink | Missing
type DomainEntry = CompiledDomain | Missing

/** A domain's slug filter: building (events buffered) or ready, possibly with a rebuild under way. */
interface FilterState {
  filter: SlugFilter | null
  /** When the listing it was built from began: it knows every slug created before. */
  builtAt: number
  /** Slugs created while a build runs, added to its result. */
  pending: Array<string>
  building: boolean
  /** After a failed or abandoned build, no new one before this (the database may be down). */
  retryAt: number
  /** A reset while building makes this build's result unusable. */
  generation: number
}

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

interface Inflight<T> {
  readonly promise: Promise<T>
  /** A change event arrived while loading: the result may predate it, so it is not cached. */
  stale: boolean
}

/**
 * One flat string: a template literal makes a rope that V8 flattens into a second string when
 * the key is hashed, and the cache would keep both (about 40 bytes a link); join is also the
 * quicker lookup on the hot path (118 against 150 ns a Map.get on this machine).
 */
const linkKey = (host: string, slug: string) => [host, slug].join("\n")
const MAX_BATCH = 500
const MISSING_BYTES = 64
/**
 * The longest a miss blocks its HTTP worker (loadLinkNow): a query takes a millisecond or so; a
 * database slower than this is struggling, and the worker's other visitors must not wait on it.
 */
const BLOCKING_BUDGET_MS = 50
/**
 * How long a worker may spend blocked on misses in a second. A blocked worker answers one miss at
 * a time (about 1,700 a second with two workers on the bench machine) where asynchronous misses
 * share queries (over 10,000): in a storm of misses (a cold start, a crawl) the rest of the
 * second's misses load asynchronously, batched.
 */
const BLOCKING_MS_PER_SECOND = 100

/**
 * The engine's view of links and domains: an LRU bounded by entries and bytes, with a TTL as the
 * backstop for missed events. A hit is synchronous; misses on the same key share one query.
 * Change events from the bus update or drop entries.
 *
 * An expired entry is not served while the database answers, but it is kept (until the LRU
 * evicts it) as the last known answer: when a reload fails, it is served instead (stale-if-error;
 * with none here, the source's, which the engine's other caches filled) and kept live for a few
 * seconds, so the failing database is not asked on every visit; while the database is failing,
 * visitors with a last known answer do not wait for the reload at all.
 */
export class LinkCache {
  private readonly links: LRUCache<string, LinkEntry>
  private readonly domains: LRUCache<string, DomainEntry>
  private readonly inflightLinks = new Map<string, Inflight<LinkEntry>>()
  private readonly inflightDomains = new Map<string, Inflight<DomainEntry>>()
  private readonly filters = new Map<string, FilterState>()
  private generation = 0
  private readonly guard: SourceGuard
  /** Link lookups the cache answered (a link, or a slug known not to exist). */
  hits = 0
  /** Database queries made, for the benchmarks and tests that show coalescing. */
  queries = 0
  /** Lookups answered "no such slug" by a domain filter, without the database. */
  filtered = 0
  /** Lookups the database failed (or was failing) for, answered with the last known entry instead. */
  staleAnswers = 0
  /** Misses answered by blocking for the query (loadLinkNow, loadDomainNow), included in `queries`. */
  blockingLoads = 0

  private readonly ttlMs: number
  private readonly maxLinks: number
  private readonly filterMaxAgeMs: number
  private readonly filterBuildTimeoutMs: number
  /** How long an answer kept after a failed load is served before the database is asked again. */
  private readonly retryMs: number
  /** Null while bus events arrive; else since when they may have been missed. */
  private busLostAt: number | null = null
  /** Counts the change events and resets applied: a blocking load that spans one is not cached. */
  private changes = 0
  /** Time spent in blocking loads in the current second (BLOCKING_MS_PER_SECOND). */
  private blockingSecond = 0
  private blockedMs = 0
  /**
   * The LRUs' clock. reset() moves it on by a TTL, which expires every entry at once while
   * keeping it as a last known answer (clear() would drop those too).
   */
  private clockOffset = 0

  constructor(private readonly source: LinkSource, options: CacheOptions) {
    this.ttlMs = options.ttlMs
    this.filterMaxAgeMs = options.ttlMs * 10
    this.filterBuildTimeoutMs = options.filterBuildTimeoutMs ?? 30_000
    this.retryMs = Math.min(options.ttlMs, 5_000)
    this.guard = new SourceGuard({ timeoutMs: options.loadTimeoutMs ?? 2_000, maxOutstanding: options.maxOutstandingLoads ?? 256 })
    // ttlResolution 0: every staleness check reads the clock, so a reset takes effect at once.
    const clock = { now: () => performance.now() + this.clockOffset }
    this.maxLinks = options.maxLinks
    // No `max`: lru-cache would allocate its slot arrays for every entry it may ever hold
    // (2,000,000 by default, about 100 MB before the first link); without it they grow with the
    // entries, and the entry bound is kept by `bound()`.
    this.links = new LRUCache<string, LinkEntry>({
      maxSize: options.maxBytes,
      sizeCalculation: (entry, key) => (entry === MISSING ? MISSING_BYTES : compiledLinkBytes(entry)) + key.length,
      ttl: options.ttlMs,
      ttlResolution: 0,
      perf: clock,
      noDeleteOnStaleGet: true
    })
    this.domains = new LRUCache<string, DomainEntry>({ max: 100_000, ttl: options.ttlMs, ttlResolution: 0, perf: clock, noDeleteOnStaleGet: true })
  }

  /** Keeps the entry bound after an insert: the least recently used links go first. */
  private bound(): void {
    while (this.links.size > this.maxLinks) this.links.pop()
  }

  /** The cached link, MISSING when known not to exist, undefined when not cached. */
  peekLink(host: string, slug: string): LinkEntry | undefined {
    const entry = this.links.get(linkKey(host, slug))
    if (entry !== undefined) this.hits++
    return entry
  }

  peekDomain(host: string): DomainEntry | undefined {
    return this.domains.get(host)
  }

  /**
   * False when the domain's slug filter proves the slug does not exist; undefined when there is
   * no ready filter (it is then built in the background for the next requests).
   *
   * A filter knows what its listing read plus the creates the bus reported since. While the bus
   * is disconnected that knowledge ages: a "no" is trusted only while it is at most a TTL old, and
   * the filter is rebuilt from the database every half TTL so one stays usable.
   */
  mayExist(host: string, slug: string): boolean | undefined {
    let state = this.filters.get(host)
    if (state === undefined) {
      state = this.newFilterState()
      this.filters.set(host, state)
    }
    const now = Date.now()
    const lostAt = this.busLostAt
    const knownAt = lostAt === null ? now : Math.max(state.builtAt, lostAt)
    // Connected, rebuilt after a while anyway, so even a missed event is corrected in bounded time.
    const due = lostAt === null ? now - state.builtAt > this.filterMaxAgeMs : now - knownAt > this.ttlMs / 2
    if (!state.building && now >= state.retryAt && (state.filter === null || due)) this.buildFilter(host, state, now)
    if (state.filter === null || now - knownAt > this.ttlMs) return undefined
    if (state.filter.mayContain(slug)) return true
    this.filtered++
    return false
  }

  /**
   * Starts building the domain's slug filter if there is none yet: another HTTP worker built one,
   * so visitors of this domain will reach this worker too (and during a database outage a filter
   * built now is what still answers "no such slug").
   */
  warmFilter(host: string): void {
    if (this.filters.has(host)) return
    const state = this.newFilterState()
    this.filters.set(host, state)
    this.buildFilter(host, state, Date.now())
  }

  private newFilterState(): FilterState {
    return { filter: null, builtAt: 0, pending: [], building: false, retryAt: 0, generation: this.generation }
  }

  private buildFilter(host: string, state: FilterState, startedAt: number): void {
    const list = this.source.slugs
    if (list === undefined) return
    state.building = true
    state.pending = []
    let abandoned = false
    const giveUp = () => {
      state.retryAt = Date.now() + this.retryMs
    }
    // A listing that hangs must not stop every later rebuild: this one's result is then ignored.
    const timer = setTimeout(() => {
      abandoned = true
      state.building = false
      giveUp()
    }, this.filterBuildTimeoutMs)
    void (async () => {
      const slugs: Array<string> = []
      for await (const chunk of list(host)) {
        if (abandoned) return
        for (const slug of chunk) slugs.push(slug)
      }
      if (abandoned || state.generation !== this.generation || this.filters.get(host) !== state) return
      const filter = SlugFilter.forCount(slugs.length + state.pending.length)
      for (const slug of slugs) filter.add(slug)
      for (const slug of state.pending) filter.add(slug)
      state.pending = []
      state.filter = filter
      state.builtAt = startedAt
    })().catch(() => {
      // No new filter this time: the old one (if any) stays while it may be trusted; lookups it
      // cannot answer go to the database.
      giveUp()
    }).finally(() => {
      clearTimeout(timer)
      if (!abandoned) state.building = false
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

  /** Rejects with SourceUnavailable when the database fails and there is no last known answer. */
  loadDomain(host: string): Promise<DomainEntry> {
    return this.load(this.inflightDomains, this.domains, host, async () => {
      const record = await this.guard.run(() => {
        this.queries++
        return this.source.domain(host)
      })
      return record === null ? MISSING : compileDomain(record)
    }, () => this.source.lastKnownDomain?.(host).then((record) => entryOf(record, compileDomain)))
  }

  /**
   * Rejects with SourceUnavailable when the database fails and there is no last known answer
   * (an entry, or the domain's slug filter saying "no" even when too old to be trusted otherwise).
   */
  loadLink(host: string, slug: string): Promise<LinkEntry> {
    return this.load(this.inflightLinks, this.links, linkKey(host, slug), async () => {
      if (this.source.links !== undefined) {
        const record = await this.batched(host, slug)
        return record === null ? MISSING : compileLink(record, this.intern)
      }
      const record = await this.guard.run(() => {
        this.queries++
        return this.source.link(host, slug)
      })
      return record === null ? MISSING : compileLink(record, this.intern)
    }, () => this.source.lastKnownLink?.(host, slug).then((record) => entryOf(record, (known) => compileLink(known, this.intern)))).catch((error: unknown) => {
      const filter = this.filters.get(host)?.filter ?? null
      if (!(error instanceof SourceUnavailable) || filter === null || filter.mayContain(slug)) throw error
      this.staleAnswers++
      return MISSING
    })
  }

  /**
   * A domain miss answered before the request handler returns, so that a request pipelined behind
   * it in the same read is answered too (uWS.js closes such a connection while an answer is
   * pending: engine/http/pendingAnswers.ts). Undefined when this cache cannot block (not an HTTP
   * worker), while the database is failing (a visitor then gets the last known answer from
   * loadDomain without waiting), when a load of the key is under way, or when no answer came in
   * time: then load asynchronously.
   */
  loadDomainNow(host: string): DomainEntry | undefined {
    const domainNow = this.source.domainNow
    if (domainNow === undefined) return undefined
    return this.loadNow(this.inflightDomains, this.domains, host, () => entryOf(domainNow(host, BLOCKING_BUDGET_MS), compileDomain))
  }

  /** As loadDomainNow, for a link. */
  loadLinkNow(host: string, slug: string): LinkEntry | undefined {
    const linkNow = this.source.linkNow
    if (linkNow === undefined) return undefined
    return this.loadNow(this.inflightLinks, this.links, linkKey(host, slug), () => entryOf(linkNow(host, slug, BLOCKING_BUDGET_MS), (record) => compileLink(record, this.intern)))
  }

  private loadNow<T>(inflight: Map<string, Inflight<T>>, cache: LRUCache<string, T & {}>, key: string, query: () => T | undefined): T | undefined {
    if (this.guard.down || inflight.has(key)) return undefined
    const started = performance.now()
    const second = Math.floor(started / 1000)
    if (second !== this.blockingSecond) {
      this.blockingSecond = second
      this.blockedMs = 0
    }
    if (this.blockedMs >= BLOCKING_MS_PER_SECOND) return undefined
    const changes = this.changes
    this.queries++
    this.blockingLoads++
    let value: T | undefined
    try {
      value = query()
    } catch {
      // The asynchronous load that follows asks again, through the guard that counts, logs and
      // falls back to the last known answer.
      return undefined
    } finally {
      this.blockedMs += performance.now() - started
    }
    // Change events handled while it waited may be newer than its answer: served once, not kept.
    if (value !== undefined && this.changes === changes) {
      cache.set(key, value as T & {})
      this.bound()
    }
    return value
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
      this.guard.run(() => {
        this.queries++
        return this.source.links!(chunk)
      }).then(
        (found) => {
          for (const w of chunk) w.resolve(found.get(linkKey(w.host, w.slug)) ?? null)
        },
        (error) => {
          for (const w of chunk) w.reject(error)
        }
      )
    }
  }

  /**
   * `lastKnownElsewhere` is asked when the query fails and this cache has no last known answer:
   * another HTTP worker may have known the key (what the main thread keeps of every worker's).
   */
  private load<T>(
    inflight: Map<string, Inflight<T>>,
    cache: LRUCache<string, T & {}>,
    key: string,
    query: () => Promise<T>,
    lastKnownElsewhere: () => Promise<T | undefined> | undefined
  ): Promise<T> {
    let pending = inflight.get(key)
    if (pending === undefined) {
      const entry: Inflight<T> = {
        stale: false,
        promise: query().then(
          (value) => {
            if (inflight.get(key) === entry) inflight.delete(key)
            if (!entry.stale) {
              cache.set(key, value as T & {})
              this.bound()
            }
            return value
          },
          (error) => {
            if (inflight.get(key) === entry) inflight.delete(key)
            const last = cache.peek(key, { allowStale: true })
            if (last !== undefined) return this.keepLastKnown(cache, key, entry, last)
            const elsewhere = lastKnownElsewhere()
            if (elsewhere === undefined) throw error
            return elsewhere.then((known) => {
              if (known === undefined) throw error
              return this.keepLastKnown(cache, key, entry, known as T & {})
            })
          }
        )
      }
      inflight.set(key, entry)
      pending = entry
    }
    // While the database is failing, a visitor with a last known answer gets it at once; the
    // query goes on in the background and refreshes the entry if it succeeds.
    if (this.guard.down) {
      const last = cache.peek(key, { allowStale: true })
      if (last !== undefined) {
        pending.promise.catch(() => {})
        this.staleAnswers++
        return Promise.resolve(last)
      }
    }
    return pending.promise
  }

  /** Serves a last known answer after a failed load, kept live for a while so the failing database is not asked on every visit. */
  private keepLastKnown<T>(cache: LRUCache<string, T & {}>, key: string, entry: Inflight<T>, last: T & {}): T {
    this.staleAnswers++
    if (!entry.stale && !cache.has(key)) {
      cache.set(key, last, { ttl: this.retryMs })
      this.bound()
    }
    return last
  }

  /** Applies one change event from the bus. */
  apply(event: ChangeEvent): void {
    this.changes++
    switch (event.type) {
      case "link.upserted": {
        const key = linkKey(event.link.host, event.link.slug)
        this.markStale(this.inflightLinks, key)
        this.noteSlug(event.link.host, event.link.slug)
        // Only links someone asked for are kept: an update refreshes them, and a create replaces
        // the negative entry left by a visitor who tried the slug first.
        replace(this.links, key, () => compileLink(event.link, this.intern))
        return
      }
      case "link.deleted": {
        const key = linkKey(event.host, event.slug)
        this.markStale(this.inflightLinks, key)
        replace<LinkEntry>(this.links, key, () => MISSING)
        return
      }
      case "domain.upserted":
        this.markStale(this.inflightDomains, event.domain.host)
        replace(this.domains, event.domain.host, () => compileDomain(event.domain))
        return
      case "domain.deleted":
        this.markStale(this.inflightDomains, event.host)
        replace<DomainEntry>(this.domains, event.host, () => MISSING)
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
    const takes = <T>(cache: LRUCache<string, T & {}>, inflight: Map<string, unknown>, key: string) => !cache.has(key) && !inflight.has(key)
    for (const link of loaded.links) {
      const key = linkKey(link.host, link.slug)
      if (!takes(this.links, this.inflightLinks, key)) continue
      this.noteSlug(link.host, link.slug)
      this.links.set(key, compileLink(link, this.intern))
    }
    for (const { host, slug } of loaded.missingLinks) {
      const key = linkKey(host, slug)
      if (takes(this.links, this.inflightLinks, key)) this.links.set(key, MISSING)
    }
    this.bound()
    for (const domain of loaded.domains) {
      if (takes(this.domains, this.inflightDomains, domain.host)) this.domains.set(domain.host, compileDomain(domain))
    }
    for (const host of loaded.missingDomains) {
      if (takes(this.domains, this.inflightDomains, host)) this.domains.set(host, MISSING)
    }
  }

  /** The bus's connection state: while disconnected, what was derived from it ages (see mayExist). */
  setBusState(state: BusState): void {
    this.busLostAt = state.connected ? null : Math.min(state.since, Date.now())
  }

  get busConnected(): boolean {
    return this.busLostAt === null
  }

  /** Database calls that failed or timed out. */
  get sourceFailures(): number {
    return this.guard.failures
  }

  /** A load under way may predate the event: it is not cached, and later requests query anew. */
  private markStale<T>(inflight: Map<string, Inflight<T>>, key: string) {
    const pending = inflight.get(key)
    if (pending !== undefined) {
      pending.stale = true
      inflight.delete(key)
    }
  }

  /** One copy of the strings many links share (the workspace id). */
  private readonly intern = stringInterner(100_000)

  /**
   * After a bus reconnect events may have been missed: every entry expires (each is reloaded on
   * its next visit, and stays only as a last known answer for a database outage), and the slug
   * filters are dropped and rebuilt.
   */
  reset(): void {
    this.changes++
    for (const pending of this.inflightLinks.values()) pending.stale = true
    for (const pending of this.inflightDomains.values()) pending.stale = true
    this.inflightLinks.clear()
    this.inflightDomains.clear()
    this.clockOffset += this.ttlMs + 1
    this.generation++
    this.filters.clear()
  }

  /** Entries and bytes held; `filters` counts the domains whose slug filter is ready to answer. */
  get size(): { links: number; domains: number; bytes: number; filters: number } {
    let filters = 0
    for (const state of this.filters.values()) if (state.filter !== null) filters++
    return { links: this.links.size, domains: this.domains.size, bytes: this.links.calculatedSize, filters }
  }
}

/** A record from the source as a cache entry (null: MISSING), undefined passed through. */
const entryOf = <R, C>(record: R | null | undefined, compile: (record: R) => C): C | Missing | undefined =>
  record === undefined ? undefined : record === null ? MISSING : compile(record)

/**
 * An event's value replaces a cached entry: a live one stays live (the event is newer than any
 * load), an expired one stays expired (the next visitor reloads it) but a database outage then
 * serves the event's value rather than an older one. Keys nobody asked for are not added.
 */
const replace = <V extends {}>(cache: LRUCache<string, V>, key: string, value: () => V): void => {
  if (cache.has(key)) cache.set(key, value())
  else if (cache.peek(key, { allowStale: true }) !== undefined) cache.set(key, value(), { noUpdateTTL: true })
}
