import type { Entries } from "./linkStore.ts"
import type { StaleIfError } from "./staleIfError.ts"

interface Inflight<T> {
  readonly promise: Promise<T>
  /** A change event arrived while loading: the result may predate it, so it is not cached. */
  stale: boolean
}

/**
 * The loads of one kind of entry from the database: misses on the same key share one load, its
 * answer is cached unless a change event came meanwhile, and a failed one falls back to the last
 * known answer (StaleIfError).
 */
export class EntryLoads<T extends {}> {
  private readonly inflight = new Map<string, Inflight<T>>()

  constructor(private readonly entries: Entries<T>, private readonly fallback: StaleIfError) {}

  /** Whether a load of the key is under way. */
  loading(key: string): boolean {
    return this.inflight.has(key)
  }

  /** `elsewhere` is asked when the query fails and this cache has no last known answer. */
  load(key: string, query: () => Promise<T>, elsewhere: () => Promise<T | undefined> | undefined): Promise<T> {
    let pending = this.inflight.get(key)
    if (pending === undefined) {
      const entry: Inflight<T> = {
        stale: false,
        promise: query().then(
          (value) => {
            if (this.inflight.get(key) === entry) this.inflight.delete(key)
            if (!entry.stale) this.entries.set(key, value)
            return value
          },
          (error) => {
            if (this.inflight.get(key) === entry) this.inflight.delete(key)
            return this.fallback.afterFailure(this.entries, key, entry, error, elsewhere)
          }
        )
      }
      this.inflight.set(key, entry)
      pending = entry
    }
    return this.fallback.whileDown(this.entries, key, pending.promise) ?? pending.promise
  }

  /** A load under way may predate a change event: it is not cached, and later requests load anew. */
  markStale(key: string): void {
    const pending = this.inflight.get(key)
    if (pending !== undefined) {
      pending.stale = true
      this.inflight.delete(key)
    }
  }

  markAllStale(): void {
    for (const pending of this.inflight.values()) pending.stale = true
    this.inflight.clear()
  }
}
