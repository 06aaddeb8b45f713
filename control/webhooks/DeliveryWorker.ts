import { Effect, FiberSet, Layer } from "effect"
import { DnsSettings } from "../kernel/DnsSettings.ts"
import { WebhookSettings } from "./WebhookSettings.ts"
import { Database } from "../../shared/db/Database.ts"
import { makeJobHealth } from "../jobs/jobHealth.ts"
import { pollLoop, type RoundOutcome } from "../jobs/pollLoop.ts"
import { countWebhookDelivery } from "../ops/metrics.ts"
import { type Claimed, claimDue, pruneDeliveries, recordAttempt, trimBacklogs, untilNextDue } from "./deliveryQueue.ts"
import { PROCESS_POOL } from "./fairClaim.ts"
import { send } from "./send.ts"
import { signedHeaders } from "./signing.ts"
import { WebhooksDue } from "./WebhooksDue.ts"
import { makeTargetLookup } from "./targetLookup.ts"

/** How often backlogs over RICOCHET_WEBHOOK_BACKLOG are trimmed, and the log pruned. */
const TRIM_EVERY_MS = 5_000
const PRUNE_EVERY_MS = 3_600_000
/**
 * The longest an idle worker rests: deliveries this process enqueues wake it, retries are waited
 * for until they are due, so this only bounds how late it sees what other control processes
 * left for it (their deliveries, once their leases lapse).
 */
const BACKSTOP_MS = 5_000

/**
 * The delivery fiber of a control process: a pool of PROCESS_POOL sending slots. Whenever slots
 * are free it claims due deliveries fairly (deliveryQueue.ts, fairClaim.ts) and starts each send
 * on its own, so a slow receiver holds its slot and nothing else: a send ending frees its slot and
 * claims again at once. While idle it asks, in one statement, when the next delivery is due and
 * rests until then (at most BACKSTOP_MS: every control process on a shared PostgreSQL takes its
 * share), and is woken at once by deliveries this process enqueues. Stopping interrupts the
 * sends under way; their rows are claimed again once their lease lapses (at least once).
 */
export const WebhookDeliveryWorker = Layer.effectDiscard(Effect.gen(function*() {
  const { sql, kind } = yield* Database
  const { webhookRetryBaseSeconds, webhooksAllowLoopback, webhookBacklog } = yield* WebhookSettings
  const { dnsServers } = yield* DnsSettings
  const retryBaseMs = webhookRetryBaseSeconds * 1000
  const lookup = makeTargetLookup(dnsServers, webhooksAllowLoopback)
  const sends = yield* FiberSet.make<void, never>()
  const idleMs = kind === "postgres" ? 500 : 250
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
    if (slots === 0) return { trimmed, rows: [], waitMs: undefined }
    // Nothing due: no claim, and rest until the next retry (or the backstop) unless woken.
    const waitMs = await untilNextDue(sql)
    if (waitMs === undefined || waitMs > 0) return { trimmed, rows: [], waitMs: waitMs ?? BACKSTOP_MS }
    return { trimmed, rows: await claimDue(sql, slots), waitMs: undefined }
  }).pipe(
    Effect.flatMap(({ trimmed, rows, waitMs }) =>
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
      ).pipe(
        // Something was claimed and slots are left: there may be more. Else wait for a send to end,
        // a new delivery, or the poll. Database down: nothing is lost (rows stay pending, leases expire).
        Effect.map((): RoundOutcome =>
          rows.length > 0 && inFlight < PROCESS_POOL
            ? "again"
            : waitMs === undefined
            ? "idle"
            : { restMs: Math.min(BACKSTOP_MS, Math.max(idleMs, waitMs)) })
      )
    )
  )
  const loop = yield* pollLoop("webhook deliveries", round, { idleMs })
  nudge = loop.wake
  yield* (yield* WebhooksDue).subscribe(loop.wake)
}))
