import type { DomainRecord, LinkRecord } from "../../shared/links/linkRecord.ts"

/** Where a LinkCache loads what it does not hold: the database, or the main thread asking it for an HTTP worker. */
export interface LinkSource {
  readonly link: (host: string, slug: string) => Promise<LinkRecord | null>
  /** Many links in one query, keyed `host\nslug`; when present, misses are batched per event-loop turn. */
  readonly links?: (keys: ReadonlyArray<{ readonly host: string; readonly slug: string }>) => Promise<Map<string, LinkRecord>>
  readonly domain: (host: string) => Promise<DomainRecord | null>
  /** Every slug on the domain, in chunks; absent when the source cannot list them. */
  readonly slugs?: (host: string) => AsyncIterable<ReadonlyArray<string>>
  /**
   * The last answer the engine's other caches had for a key, for when the database fails and this
   * cache has none of its own (null: known not to exist; undefined: nothing known). Without the
   * database, so it answers at once. An HTTP worker's: the main thread keeps every worker's.
   */
  readonly lastKnownLink?: (host: string, slug: string) => Promise<LinkRecord | null | undefined>
  readonly lastKnownDomain?: (host: string) => Promise<DomainRecord | null | undefined>
}
