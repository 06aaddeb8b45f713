import type { DomainRecord, LinkRecord } from "../links/linkRecord.ts"

/**
 * Change events, written to the outbox in the transaction that makes the change and published to
 * the bus after commit. A delete carries host and slug so an engine can drop its cache entry
 * without a lookup.
 */
export type ChangeEvent =
  | { readonly type: "link.upserted"; readonly link: LinkRecord }
  | { readonly type: "link.deleted"; readonly id: string; readonly host: string; readonly slug: string }
  | { readonly type: "domain.upserted"; readonly domain: DomainRecord }
  | { readonly type: "domain.deleted"; readonly id: string; readonly host: string }

/** Bus subject of an event: engines subscribe to `ricochet.changes.>`. */
export const subjectOf = (event: ChangeEvent): string => `ricochet.changes.${event.type}`
