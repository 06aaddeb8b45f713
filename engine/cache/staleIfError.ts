import type { Entries } from "./linkStore.ts"
import type { SlugFilter } from "./slugFilter.ts"
import { type SourceGuard, SourceUnavailable } from "./sourceGuard.ts"
import { MISSING, type Missing } from "./linkStore.ts"

/**
 * What the cache answers when the database does not (stale-if-error). An expired entry is not
 * served while the database answers, but after a failed reload it is (with none here, the one
 * the engine's other caches had), and kept live for a few seconds so the failing database is not
 * asked on every visit; while the database is failing, visitors with a last known answer do not
 * wait for the reload at all.
 */
export class StaleIfError {
  /** Lookups the database failed (or was failing) for, answered with the last known entry instead. */
  answers = 0

  /** `retryMs`: how long an answer kept after a failed load is served before the database is asked again. */
  constructor(private readonly guard: SourceGuard, private readonly retryMs: number) {}

  /** The database failed its last call and none has succeeded since. */
  get down(): boolean {
    return this.guard.down
  }

  /**
   * While the database is failing, a visitor with a last known answer gets it at once; the load
   * goes on in the background and refreshes the entry if it succeeds. Undefined otherwise.
   */
  whileDown<T extends {}>(entries: Entries<T>, key: string, loading: Promise<T>): Promise<T> | undefined {
    if (!this.guard.down) return undefined
    const last = entries.lastKnown(key)
    if (last === undefined) return undefined
    loading.catch(() => {})
    this.answers++
    return Promise.resolve(last)
  }

  /**
   * After a failed load: the last known answer, else what `elsewhere` knows (another HTTP
   * worker may have known the key: what the main thread keeps of every worker's), else the error.
   * `load.stale`: a change event came while it loaded, so nothing is kept.
   */
  afterFailure<T extends {}>(
    entries: Entries<T>,
    key: string,
    load: { readonly stale: boolean },
    error: unknown,
    elsewhere: () => Promise<T | undefined> | undefined
  ): T | Promise<T> {
    const last = entries.lastKnown(key)
    if (last !== undefined) return this.keep(entries, key, load, last)
    const asking = elsewhere()
    if (asking === undefined) throw error
    return asking.then((known) => {
      if (known === undefined) throw error
      return this.keep(entries, key, load, known)
    })
  }

  /**
   * A link the database could not be asked about, with no last known answer: the domain's slug
   * filter saying "no" answers even when too old to be trusted otherwise. Rethrows otherwise.
   */
  missingByFilter(error: unknown, filter: SlugFilter | null, slug: string): Missing {
    if (!(error instanceof SourceUnavailable) || filter === null || filter.mayContain(slug)) throw error
    this.answers++
    return MISSING
  }

  /** Serves a last known answer, kept live for a while so the failing database is not asked on every visit. */
  private keep<T extends {}>(entries: Entries<T>, key: string, load: { readonly stale: boolean }, last: T): T {
    this.answers++
    if (!load.stale && !entries.has(key)) entries.setFor(key, last, this.retryMs)
    return last
  }
}
