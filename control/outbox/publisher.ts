import { Data, Effect, Layer } from "effect"
import type { Bus } from "../../shared/bus/bus.ts"
import { ChangeBus } from "../../shared/bus/ChangeBus.ts"
import { type BusChange, ChangeEvent } from "../../shared/bus/events.ts"
import { Database } from "../../shared/db/Database.ts"
import { receiver } from "../../shared/messages/receiver.ts"
import { pollLoop } from "../jobs/pollLoop.ts"
import { OutboxSignal } from "./OutboxSignal.ts"

export const OUTBOX_CHANNEL = "ricochet_outbox"
// One publisher at a time across control processes keeps events in commit order on the bus.
const PUBLISH_LOCK = 7_342_003
const BATCH = 500
/** The embedded database's poll: only a backstop (see OutboxPublisher). */
const EMBEDDED_BACKSTOP_MS = 5_000

/** The bus did not take a batch in time; the transaction rolls back and the rows go out later. */
const publishWithin = (bus: Bus, changes: ReadonlyArray<BusChange>, timeoutMs: number): Promise<void> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the bus did not take ${changes.length} events within ${timeoutMs} ms`)), timeoutMs)
    bus.publish(changes).then(resolve, reject).finally(() => clearTimeout(timer))
  })

/** LISTEN on the outbox channel failed: commits do not wake the publisher, its polling still finds them. */
export class OutboxListenError extends Data.TaggedError("OutboxListenError")<{ readonly cause: unknown }> {}

/** Rows are decoded as they are read back: what another version wrote, or a hand edit, may not be an event. */
export const receiveOutboxRow = receiver("outbox", ChangeEvent)

/**
 * Publishes committed outbox rows to the bus in id order and marks them sent in the same
 * transaction. If the bus does not take them (within `publishTimeoutMs`: the transaction must
 * not stay open through a bus outage) the transaction rolls back and the rows are sent again
 * later, so a change is never lost; an event may arrive twice, which the engines tolerate. A row
 * that is not a ChangeEvent is logged, counted and marked sent with the rest: published it would
 * be refused by every engine, and left unsent it would be read again on every round. It stays a
 * day for inspection, like every sent row.
 */
export const publishPending = async (sql: Database["Service"]["sql"], bus: Bus, publishTimeoutMs = 5_000): Promise<number> =>
  (await sql.begin(async (tx) => {
    const [{ ok }] = await tx<{ ok: boolean }[]>`SELECT pg_try_advisory_xact_lock(${PUBLISH_LOCK}) AS ok`
    if (!ok) return 0
    // The row's time in milliseconds as a float8: a number from postgres.js and PGlite alike.
    const rows = await tx<{ id: string; payload: unknown; changed_at: number }[]>`
      SELECT id, payload, (extract(epoch FROM created_at) * 1000)::float8 AS changed_at
      FROM outbox WHERE sent_at IS NULL ORDER BY id LIMIT ${BATCH}`
    if (rows.length === 0) return 0
    const changes: Array<BusChange> = []
    for (const row of rows) {
      const event = receiveOutboxRow(row.payload, `row ${row.id}`)
      if (event !== undefined) changes.push({ event, changedAt: row.changed_at })
    }
    if (changes.length > 0) await publishWithin(bus, changes, publishTimeoutMs)
    await tx`UPDATE outbox SET sent_at = now() WHERE id = ANY(${rows.map((r) => r.id)}::bigint[])`
    return rows.length
  })) as number

/**
 * The outbox publisher fiber, woken at commit by the writing transaction: through OutboxSignal in
 * this process, and on PostgreSQL also by the NOTIFY of other control processes. Its poll is a
 * backstop. The embedded database is written by this process alone (the CLI reaches it through
 * the admin channel, whose commits wake the publisher too), and every statement it runs blocks
 * the event loop the API, and in a single-threaded engine the redirects, share: a long backstop.
 */
export const OutboxPublisher = Layer.effectDiscard(Effect.gen(function*() {
  const { sql, kind, queryTimeoutMs } = yield* Database
  const bus = yield* ChangeBus
  // A backstop only: commits wake the publisher (NOTIFY on PostgreSQL, in-process signal when embedded).
  // Bus or database down: it backs off up to 5 s and tries again; nothing is lost meanwhile.
  const loop = yield* pollLoop(
    "outbox publisher",
    Effect.map(Effect.tryPromise(() => publishPending(sql, bus, queryTimeoutMs)), (sent) => (sent > 0 ? "again" : "idle")),
    { idleMs: kind === "postgres" ? 500 : EMBEDDED_BACKSTOP_MS }
  )
  if (kind === "postgres") {
    yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => sql.listen(OUTBOX_CHANNEL, loop.wake),
        catch: (cause) => new OutboxListenError({ cause })
      }),
      // Cannot reject (.catch): a connection that is gone has unlistened already.
      (listener) => Effect.promise(() => listener.unlisten().catch(() => {}))
    ).pipe(
      // Not fatal: the publisher polls every idleMs anyway, so events go out, only later.
      Effect.catchTag("OutboxListenError", (error) =>
        Effect.logWarning("outbox: LISTEN failed; changes are published by polling only", error.cause))
    )
  }
  yield* (yield* OutboxSignal).subscribe(loop.wake)
}))

/** Sent rows are kept a day for inspection, then removed. */
export const pruneOutbox = (sql: Database["Service"]["sql"]) =>
  sql`DELETE FROM outbox WHERE sent_at < now() - interval '1 day'`
