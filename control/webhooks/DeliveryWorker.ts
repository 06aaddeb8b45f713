import { Effect, Layer } from "effect"
import type { Sql } from "postgres"
import { Configuration } from "../../shared/config.ts"
import { Database } from "../../shared/db/Database.ts"
import { afterFailure, isDelivered, shouldDisable } from "./retry.ts"
import { send, type SendResult } from "./send.ts"
import { signedHeaders } from "./signing.ts"
import { onWebhooksDue } from "./signal.ts"
import { makeTargetLookup, type TargetLookup } from "./targetLookup.ts"

/** Longer than a send's timeout: a row is claimed again only if its sender died. */
const LEASE_SECONDS = 60
const BATCH = 20
const CONCURRENCY = 8

interface Claimed {
  id: string
  webhook_id: string
  message_id: string
  payload: string
  attempts: number
  created_at: Date
  url: string
  secret: string
}

/**
 * Claims due deliveries: each the oldest pending row of its webhook and order key (so one link's
 * events go out one after the other, in order), of an enabled webhook, not leased by another
 * sender. FOR UPDATE SKIP LOCKED and the lease keep two control processes from sending a row twice.
 */
export const claimDue = (sql: Sql, limit: number) =>
  sql<Claimed[]>`
    UPDATE webhook_deliveries d SET lease_until = now() + make_interval(secs => ${LEASE_SECONDS})
    FROM webhooks w
    WHERE w.id = d.webhook_id AND d.id IN (
      SELECT c.id FROM webhook_deliveries c JOIN webhooks cw ON cw.id = c.webhook_id AND cw.enabled
      WHERE c.status = 'pending' AND c.next_attempt_at <= now() AND (c.lease_until IS NULL OR c.lease_until < now())
        AND NOT EXISTS (
          SELECT 1 FROM webhook_deliveries e
          WHERE e.webhook_id = c.webhook_id AND e.order_key = c.order_key AND e.status = 'pending' AND e.id < c.id)
      ORDER BY c.id
      LIMIT ${limit}
      FOR UPDATE OF c SKIP LOCKED)
    RETURNING d.id, d.webhook_id, d.message_id, d.payload, d.attempts, d.created_at, w.url, w.secret`

const describe = (result: SendResult): string => (result.status === null ? result.error ?? "no answer" : `HTTP ${result.status}`)

/** Stores an attempt's outcome; a failure also counts against the webhook, which is disabled after 3 days of them. */
export const recordAttempt = async (sql: Sql, row: Claimed, result: SendResult, now: Date, retryBaseMs: number): Promise<void> => {
  const attempts = row.attempts + 1
  const common = {
    attempts,
    last_attempt_at: now,
    lease_until: null,
    response_status: result.status,
    response_excerpt: result.excerpt,
    last_error: result.status === null ? result.error : null
  }
  if (result.status !== null && isDelivered(result.status)) {
    await sql`UPDATE webhook_deliveries SET ${sql({ ...common, status: "delivered" })} WHERE id = ${row.id}`
    await sql`UPDATE webhooks SET failing_since = NULL WHERE id = ${row.webhook_id} AND failing_since IS NOT NULL`
    return
  }
  const outcome = afterFailure(new Date(row.created_at), attempts, now, retryBaseMs)
  await sql`UPDATE webhook_deliveries SET ${
    sql(outcome.kind === "retry" ? { ...common, next_attempt_at: outcome.at } : { ...common, status: "failed" })
  } WHERE id = ${row.id}`
  const [webhook] = await sql<{ failing_since: Date }[]>`
    UPDATE webhooks SET failing_since = COALESCE(failing_since, ${now}) WHERE id = ${row.webhook_id} RETURNING failing_since`
  if (webhook !== undefined && shouldDisable(new Date(webhook.failing_since), now)) {
    const reason = `Disabled at ${now.toISOString()}: every delivery failed since ${new Date(webhook.failing_since).toISOString()} ` +
      `(3 days); the last one: ${describe(result)}. PATCH {"enabled": true} re-enables it.`
    await sql`UPDATE webhooks SET enabled = false, disabled_reason = ${reason}, updated_at = now() WHERE id = ${row.webhook_id} AND enabled`
  }
}

/** The delivery log keeps finished deliveries 30 days. */
export const pruneDeliveries = (sql: Sql) =>
  sql`DELETE FROM webhook_deliveries WHERE status <> 'pending' AND created_at < now() - interval '30 days'`

/** Claims a batch, sends it, records each outcome; the number of deliveries attempted. */
export const deliverDue = async (
  sql: Sql,
  options: { readonly allowLoopback: boolean; readonly lookup: TargetLookup; readonly retryBaseMs: number }
): Promise<number> => {
  const rows = await claimDue(sql, BATCH)
  let next = 0
  const worker = async () => {
    while (next < rows.length) {
      const row = rows[next++]
      const now = new Date()
      const result = await send(row.url, signedHeaders(row.secret, row.message_id, row.payload, now), row.payload, { allowLoopback: options.allowLoopback, lookup: options.lookup })
      await recordAttempt(sql, row, result, new Date(), options.retryBaseMs)
    }
  }
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, rows.length) }, worker))
  return rows.length
}

/**
 * The delivery fiber of a control process: delivers whatever is due, polls while idle (every
 * control process on a shared PostgreSQL takes its share), and is woken at once by deliveries
 * this process enqueues.
 */
export const WebhookDeliveryWorker = Layer.effectDiscard(Effect.gen(function*() {
  const { sql, kind } = yield* Database
  const config = yield* Configuration
  const options = {
    allowLoopback: config.webhooksAllowLoopback,
    lookup: makeTargetLookup(config.dnsServers, config.webhooksAllowLoopback),
    retryBaseMs: config.webhookRetryBaseSeconds * 1000
  }
  let wake: (() => void) | undefined
  onWebhooksDue(() => wake?.())
  yield* Effect.addFinalizer(() => Effect.sync(() => onWebhooksDue(undefined)))
  const idleMs = kind === "postgres" ? 500 : 250
  let failures = 0
  let rounds = 0
  const sleep = (ms: number) =>
    Effect.callback<void>((resume) => {
      const done = () => {
        clearTimeout(timer)
        wake = undefined
        resume(Effect.void)
      }
      const timer = setTimeout(done, ms)
      wake = done
      return Effect.sync(() => clearTimeout(timer))
    })
  const step = Effect.tryPromise(async () => {
    if (++rounds % 2_000 === 0) await pruneDeliveries(sql)
    return deliverDue(sql, options)
  }).pipe(
    Effect.flatMap((attempted) => {
      failures = 0
      return attempted > 0 ? Effect.void : sleep(idleMs)
    }),
    Effect.catchCause((cause) => {
      failures++
      // Database down: nothing is lost (rows stay pending, leases expire); try again a little later.
      return Effect.andThen(
        failures === 1 ? Effect.logWarning("webhook delivery round failed; retrying", cause) : Effect.void,
        sleep(Math.min(5_000, 100 * 2 ** failures))
      )
    })
  )
  yield* Effect.forkScoped(Effect.forever(step))
}))
