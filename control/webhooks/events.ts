import { Effect } from "effect"
import type { Sql, TransactionSql } from "postgres"
import { run } from "../db/sql.ts"
import type { WebhookEventType } from "./schema.ts"
import { WebhooksDue } from "./WebhooksDue.ts"

/**
 * One thing that happened, for the webhooks that want it. `orderKey` is what deliveries stay in
 * order by (the link, or the domain); `linkId`/`domainId` are matched against a webhook's filter.
 */
export interface WebhookEvent {
  readonly type: WebhookEventType
  readonly workspaceId: string
  readonly orderKey: string
  readonly linkId: string | null
  readonly domainId: string | null
  readonly data: unknown
  /** When it happened, if not now: webhooks created later do not get it (clicks read back from files). */
  readonly occurredAt?: Date
}

/** The Standard Webhooks payload shape: `{ type, timestamp, data }`. */
export const payloadOf = (event: WebhookEvent): string =>
  JSON.stringify({ type: event.type, timestamp: (event.occurredAt ?? new Date()).toISOString(), data: event.data })

/**
 * Writes a delivery row for every webhook of the workspace that wants the event, paused or
 * disabled ones too: their deliveries wait and go out, in order, when they are enabled again
 * (the backlog bounded by RICOCHET_WEBHOOK_BACKLOG, see deliveryQueue.ts). Called in the
 * transaction that makes the change (beside the outbox's writeEvents), so a committed change
 * always has its deliveries and a rolled-back one never does.
 */
export const insertWebhookDeliveries = async (sql: TransactionSql | Sql, events: ReadonlyArray<WebhookEvent>): Promise<number> => {
  let queued = 0
  for (const event of events) {
    const rows = await sql`
      INSERT INTO webhook_deliveries (webhook_id, message_id, event_type, order_key, payload)
      SELECT id, 'msg_' || replace(gen_random_uuid()::text, '-', ''), ${event.type}, ${event.orderKey}, ${payloadOf(event)}
      FROM webhooks
      WHERE workspace_id = ${event.workspaceId} AND ${event.type} = ANY(events)
        AND (link_id IS NULL OR link_id = ${event.linkId})
        AND (domain_id IS NULL OR domain_id = ${event.domainId})
        ${event.occurredAt === undefined ? sql`` : sql`AND created_at <= ${event.occurredAt}`}
      ORDER BY id
      RETURNING id`
    queued += rows.length
  }
  return queued
}

/** insertWebhookDeliveries in a repository's transaction; the delivery worker of this process is woken once it commits. */
export const enqueueWebhookEvents = (tx: TransactionSql, events: ReadonlyArray<WebhookEvent>) =>
  Effect.tap(
    run(() => insertWebhookDeliveries(tx, events)),
    (queued) => (queued > 0 ? Effect.flatMap(Effect.service(WebhooksDue), (due) => due.mark) : Effect.void)
  )
