import { Effect, FiberSet, Layer } from "effect"
import { DnsSettings } from "../kernel/DnsSettings.ts"
import { WebhookSettings } from "./WebhookSettings.ts"
import { Database } from "../../shared/db/Database.ts"
import { makeJobHealth } from "../jobs/jobHealth.ts"
import { pollLoop } from "../jobs/pollLoop.ts"
import { countWebhookDelivery } from "../ops/metrics.ts"
import { type Claimed, claimDue, pruneDeliveries, recordAttempt, trimBacklogs } from "./deliveryQueue.ts"
import { PROCESS_POOL } from "./fairClaim.ts"
import { send } from "./send.ts"
import { signedHeaders } from "./signing.ts"
import { WebhooksDue } from "./WebhooksDue.ts"
import { makeTargetLookup } from "./targetLookup.ts"

/** How often backlogs over RICOCHET_WEBHOOK_BACKLOG are trimmed, and the log pruned. */
const TRIM_EVERY_MS = 5_000
const PRUNE_EVERY_MS = 3_600_000

/**
 * The delivery fiber of a control process: a pool of PROCESS_POOL sending slots. Whenever slots
 * are free it claims due deliveries fairly (deliveryQueue.ts, fairClaim.ts) and starts each send
 * on its own, so a slow receiver holds its slot and nothing else: a send ending frees its slot and
 * claims again at once. It polls while idle (every control process on a shared PostgreSQL takes
 * its share), and is woken at once by deliveries this process enqueues. Stopping interrupts the
 * sends under way; their rows are claimed again once their lease lapses (at least once).
 */
export const WebhookDeliveryWorker = Layer.effectDiscard(Effect.gen(function*() {
  const { sql, kind } = yield* Database
  const { webhookRetryBaseSeconds, webhooksAllowLoopback, webhookBacklog } = yield* WebhookSettings
  const { dnsServers } = yield* DnsSettings
  const retryBaseMs = webhookRetryBaseSeconds * 1000
  const lookup = makeTargetLookup(dnsServers, webhooksAllowLoopback)
  const sends = yield* FiberSet.make<void, never>()
  let inFlight = 0
  // Set once the loop runs: a send ending or a delivery enqueued here ends its rest.
  let nudge = () => {}
  let trimmedAt = 0
  let prunedAt = Date.now()
  const records = makeJobHealth("webhook delivery records")

  const deliver = (row: Claimed) =>
    Effect.tryPromise((signal) => {
      const body = row.payload
      return send(row.url, signedHeaders(row.secret, row.message_id, body, new Date()), body, {
        allowLoopback: webhooksAllowLoopback,
        lookup,
        signal
      })
    }).pipe(
      Effect.flatMap((result) => Effect.tryPromise(() => recordAttempt(sql, row, result, new Date(), retryBaseMs))),
      Effect.flatMap((outcome) => countWebhookDelivery(outcome)),
      Effect.tap(() => records.succeeded),
      // Not recorded (database down): the row's lease lapses and it is sent again, at least once.
      Effect.catchCause(records.failed),
      Effect.ensuring(Effect.sync(() => {
        inFlight--
        nudge()
      }))
    )

  /** Trims backlogs and prunes the log when due: the deliveries dropped, by webhook. */
  const housekeeping = async () => {
    const now = Date.now()
    let trimmed: Array<{ webhook_id: string; dropped: number }> = []
    if (now - trimmedAt >= TRIM_EVERY_MS) {
      trimmedAt = now
      trimmed = await trimBacklogs(sql, webhookBacklog)
    }
    if (now - prunedAt >= PRUNE_EVERY_MS) {
      prunedAt = now
      await pruneDeliveries(sql)
    }
    return trimmed
  }

  const round = Effect.tryPromise(async () => {
    const trimmed = await housekeeping()
    const slots = PROCESS_POOL - inFlight
    return { trimmed, rows: slots > 0 ? await claimDue(sql, slots) : [] }
  }).pipe(
    Effect.flatMap(({ trimmed, rows }) =>
      Effect.andThen(
        Effect.forEach(trimmed, ({ webhook_id, dropped }) =>
          Effect.andThen(
            Effect.logWarning(`webhook ${webhook_id}: ${dropped} oldest unsent deliveries dropped, over its backlog of ${webhookBacklog}`),
            countWebhookDelivery("dropped", dropped)
          ), { discard: true }),
        Effect.forEach(rows, (row) => {
          inFlight++
          return FiberSet.run(sends, deliver(row))
        }, { discard: true })
      ).pipe(Effect.as(rows.length))
    ),
    // Something was claimed and slots are left: there may be more. Else wait for a send to end,
    // a new delivery, or the poll. Database down: nothing is lost (rows stay pending, leases expire).
    Effect.map((claimed) => (claimed > 0 && inFlight < PROCESS_POOL ? "again" : "idle"))
  )
  const loop = yield* pollLoop("webhook deliveries", round, { idleMs: kind === "postgres" ? 500 : 250 })
  nudge = loop.wake
  yield* (yield* WebhooksDue).subscribe(loop.wake)
}))
