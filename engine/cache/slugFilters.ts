import type { BusState } from "../../shared/bus/bus.ts"
import { SlugFilter } from "./slugFilter.ts"

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

export interface SlugFiltersOptions {
  readonly ttlMs: number
  /** A slug listing for a filter not done after this long is abandoned. */
  readonly buildTimeoutMs: number
  /** After a failed or abandoned build, how long before the next. */
  readonly retryMs: number
}

/**
 * The slug filter of each domain visited (SlugFilter), built from the database's listing of its
 * slugs and kept up to date by the bus's creates, so that a slug no link has is answered "no such
 * slug" without a query.
 *
 * A filter knows what its listing read plus the creates the bus reported since. While the bus
 * is disconnected that knowledge ages: a "no" is trusted only while it is at most a TTL old, and
 * the filter is rebuilt from the database every half TTL so one stays usable.
 */
export class SlugFilters {
  private readonly filters = new Map<string, FilterState>()
  private generation = 0
  /** Null while bus events arrive; else since when they may have been missed. */
  private busLostAt: number | null = null
  private readonly maxAgeMs: number
  /** Lookups answered "no such slug" by a domain filter, without the database. */
  filtered = 0

  /** `list`: every slug on a domain, in chunks (LinkSource.slugs); without it no filter is built. */
  constructor(private readonly list: ((host: string) => AsyncIterable<ReadonlyArray<string>>) | undefined, private readonly options: SlugFiltersOptions) {
    this.maxAgeMs = options.ttlMs * 10
  }

  /**
   * False when the domain's slug filter proves the slug does not exist; undefined when there is
   * no ready filter (it is then built in the background for the next requests).
   */
  mayExist(host: string, slug: string): boolean | undefined {
    let state = this.filters.get(host)
    if (state === undefined) {
      state = this.newState()
      this.filters.set(host, state)
    }
    const now = Date.now()
    const lostAt = this.busLostAt
    const knownAt = lostAt === null ? now : Math.max(state.builtAt, lostAt)
    // Connected, rebuilt after a while anyway, so even a missed event is corrected in bounded time.
    const due = lostAt === null ? now - state.builtAt > this.maxAgeMs : now - knownAt > this.options.ttlMs / 2
    if (!state.building && now >= state.retryAt && (state.filter === null || due)) this.build(host, state, now)
    if (state.filter === null || now - knownAt > this.options.ttlMs) return undefined
    if (state.filter.mayContain(slug)) return true
    this.filtered++
    return false
  }

  /** Starts building the domain's slug filter if there is none yet. */
  warm(host: string): void {
    if (this.filters.has(host)) return
    const state = this.newState()
    this.filters.set(host, state)
    this.build(host, state, Date.now())
  }

  /** The domain's filter however old, for when the database fails (StaleIfError.missingByFilter). */
  filterOf(host: string): SlugFilter | null {
    return this.filters.get(host)?.filter ?? null
  }

  /** A slug created (or loaded): the domain's filter must say "maybe" for it from now on. */
  noteSlug(host: string, slug: string): void {
    const state = this.filters.get(host)
    if (state === undefined) return
    if (state.building) state.pending.push(slug)
    if (state.filter !== null) {
      state.filter.add(slug)
      if (state.filter.saturated) this.filters.delete(host)
    }
  }

  /** Events may have been missed: every filter is dropped (and rebuilt on the next visit). */
  reset(): void {
    this.generation++
    this.filters.clear()
  }

  /** The bus's connection state: while disconnected, what was derived from it ages. */
  setBusState(state: BusState): void {
    this.busLostAt = state.connected ? null : Math.min(state.since, Date.now())
  }

  get busConnected(): boolean {
    return this.busLostAt === null
  }

  /** Domains whose filter is ready to answer. */
  get ready(): number {
    let ready = 0
    for (const state of this.filters.values()) if (state.filter !== null) ready++
    return ready
  }

  private newState(): FilterState {
    return { filter: null, builtAt: 0, pending: [], building: false, retryAt: 0, generation: this.generation }
  }

  private build(host: string, state: FilterState, startedAt: number): void {
    const list = this.list
    if (list === undefined) return
    state.building = true
    state.pending = []
    let abandoned = false
    const giveUp = () => {
      state.retryAt = Date.now() + this.options.retryMs
    }
    // A listing that hangs must not stop every later rebuild: this one's result is then ignored.
    const timer = setTimeout(() => {
      abandoned = true
      state.building = false
      giveUp()
    }, this.options.buildTimeoutMs)
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
}
