import { Effect } from "effect"
import type { Sql, TransactionSql } from "postgres"
import { type ChangeEvent, subjectOf } from "../../shared/bus/events.ts"
import { run } from "../db/sql.ts"
import { OutboxSignal } from "./OutboxSignal.ts"

/**
 * Records change events inside the caller's transaction: they commit with the change or not at
 * all. Publishing to the bus happens after commit, from the outbox table; the publisher of this
 * process is woken then (OutboxSignal).
 */
export const writeEvents = (tx: TransactionSql, events: ReadonlyArray<ChangeEvent>) =>
  events.length === 0
    ? Effect.void
    : Effect.andThen(run(() => insertEvents(tx, events)), Effect.flatMap(Effect.service(OutboxSignal), (signal) => signal.mark))

const insertEvents = async (tx: TransactionSql, events: ReadonlyArray<ChangeEvent>): Promise<void> => {
  const rows = events.map((event) => ({ topic: subjectOf(event), payload: event }))
  await tx`INSERT INTO outbox ${tx(rows.map((r) => ({ topic: r.topic, payload: tx.json(r.payload as never) })))}`
  // Delivered at commit: wakes the publisher of every control process listening on PostgreSQL.
  await tx`SELECT pg_notify('ricochet_outbox', '')`
}

/** Change events committed and not yet published to the bus: the outbox's backlog (the partial index outbox_unsent counts them). */
export const countUnpublished = async (sql: Sql): Promise<number> => {
  const [{ backlog }] = await sql<{ backlog: number }[]>`SELECT count(*)::int AS backlog FROM outbox WHERE sent_at IS NULL`
  return backlog
}
