import { Schema } from "effect"
import { DomainRecord, LinkRecord } from "../links/linkRecord.ts"

/**
 * Change events, written to the outbox in the transaction that makes the change and published to
 * the bus after commit. A delete carries host and slug so an engine can drop its cache entry
 * without a lookup. One Schema for every place they cross: the outbox row read back by the
 * publisher, and the bus message an engine receives.
 */
export const ChangeEvent = Schema.Union([
  Schema.Struct({ type: Schema.Literal("link.upserted"), link: LinkRecord }),
  Schema.Struct({ type: Schema.Literal("link.deleted"), id: Schema.String, host: Schema.String, slug: Schema.String }),
  Schema.Struct({ type: Schema.Literal("domain.upserted"), domain: DomainRecord }),
  Schema.Struct({ type: Schema.Literal("domain.deleted"), id: Schema.String, host: Schema.String })
])
export type ChangeEvent = typeof ChangeEvent.Type

/**
 * An event as the bus carries it: with the time its change was made (ms since the epoch, the
 * outbox row's), so an engine can measure how late it hears of changes (its bus lag metric).
 */
export interface BusChange {
  readonly event: ChangeEvent
  readonly changedAt: number
}

/** Bus subject of an event: engines subscribe to `ricochet.changes.>`. */
export const subjectOf = (event: ChangeEvent): string => `ricochet.changes.${event.type}`
