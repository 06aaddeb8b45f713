import type { Sql } from "postgres"
import type { Queryable } from "../../shared/db/Database.ts"
import { afterAttempt, type BreakerState, CLOSED, roomFor } from "./breaker.ts"
import { type Candidate, ENDPOINT_CAP, pickFairly, WORKSPACE_CAP } from "./fairClaim.ts"
import { afterFailure, isDelivered, shouldDisable } from "./retry.ts"
import type { SendResult } from "./send.ts"

/**
 * The delivery queue in `webhook_deliveries`: claiming due rows fairly, recording attempts (and
 * the endpoint's breaker), trimming backlogs and pruning the log. Several control processes share
 * it: claims take a transaction-scoped advisory lock (so the caps, counted from the leases of
 * every process, hold across processes), rows are taken FOR UPDATE SKIP LOCKED and leased, and no
 * transaction stays open during an HTTP call.
 */

/** Longer than a send's timeout: a row is claimed again only if its sender died. */
export const LEASE_SECONDS = 60
const CLAIM_LOCK = 7_342_009
/** Candidates read per claim: every workspace's first turn comes before anyone's second. */
const CANDIDATES = 1_000

export interface Claimed {
  id: string
  webhook_id: string
  message_id: string
  payload: string
  attempts: number
  created_at: Date
  url: string
  secret: string
}

interface CandidateRow {
  id: string
  webhook_id: string
  workspace_id: string
  breaker_failures: number
  breaker_opens: number
  breaker_open_until: Date | null
}

const breakerOf = (row: { breaker_failures: number; breaker_opens: number; breaker_open_until: Date | null }): BreakerState => ({
  failures: row.breaker_failures,
  opens: row.breaker_opens,
  openUntil: row.breaker_open_until === null ? null : new Date(row.breaker_open_until)
})

/**
 * Claims up to `slots` due deliveries, fairly across workspaces and endpoints (fairClaim.ts). A
 * row is claimable when it is pending, due, not leased, of an enabled webhook whose breaker lets
 * it through, and the oldest pending row of its webhook and order key (so one link's events go
 * out one after the other, in order).
 */
export const claimDue = (sql: Sql, slots: number): Promise<Array<Claimed>> =>
  sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${CLAIM_LOCK})`
    const [{ now }] = await tx<{ now: Date }[]>`SELECT now() AS now`
    const flying = await tx<{ webhook_id: string; workspace_id: string; n: number }[]>`
      SELECT d.webhook_id, w.workspace_id, count(*)::int AS n
      FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
      WHERE d.status = 'pending' AND d.lease_until > now()
      GROUP BY d.webhook_id, w.workspace_id`
    const rows = await tx<CandidateRow[]>`
      SELECT c.id::text AS id, w.id AS webhook_id, w.workspace_id, w.breaker_failures, w.breaker_opens, w.breaker_open_until
      FROM webhooks w CROSS JOIN LATERAL (
        SELECT c.id FROM webhook_deliveries c
        WHERE c.webhook_id = w.id AND c.status = 'pending' AND c.next_attempt_at <= now()
          AND (c.lease_until IS NULL OR c.lease_until < now())
          AND NOT EXISTS (
            SELECT 1 FROM webhook_deliveries e
            WHERE e.webhook_id = c.webhook_id AND e.order_key = c.order_key AND e.status = 'pending' AND e.id < c.id)
        ORDER BY c.id
        LIMIT ${ENDPOINT_CAP}) c
      WHERE w.enabled AND (w.breaker_open_until IS NULL OR w.breaker_open_until <= now())
      ORDER BY row_number() OVER (PARTITION BY w.workspace_id ORDER BY c.id), c.id
      LIMIT ${CANDIDATES}`
    if (rows.length === 0) return []
    const endpointInFlight = new Map(flying.map((f) => [f.webhook_id, f.n]))
    const workspaceInFlight = new Map<string, number>()
    for (const f of flying) workspaceInFlight.set(f.workspace_id, (workspaceInFlight.get(f.workspace_id) ?? 0) + f.n)
    const endpointRoom = new Map<string, number>()
    const candidates: Array<Candidate> = []
    for (const row of rows) {
      if (!endpointRoom.has(row.webhook_id)) {
        endpointRoom.set(row.webhook_id, roomFor(breakerOf(row), new Date(now), endpointInFlight.get(row.webhook_id) ?? 0, ENDPOINT_CAP))
      }
      candidates.push({ id: row.id, webhookId: row.webhook_id, workspaceId: row.workspace_id })
    }
    const ids = pickFairly(candidates, { endpointRoom, endpointInFlight, workspaceInFlight, workspaceCap: WORKSPACE_CAP, slots })
    if (ids.length === 0) return []
    return tx<Claimed[]>`
      UPDATE webhook_deliveries d SET lease_until = now() + make_interval(secs => ${LEASE_SECONDS})
      FROM webhooks w
      WHERE w.id = d.webhook_id AND d.id IN (
        SELECT l.id FROM webhook_deliveries l
        WHERE l.id = ANY(${ids}::bigint[]) AND l.status = 'pending' AND (l.lease_until IS NULL OR l.lease_until < now())
        FOR UPDATE OF l SKIP LOCKED)
      RETURNING d.id, d.webhook_id, d.message_id, d.payload, d.attempts, d.created_at, w.url, w.secret`
  }) as Promise<Array<Claimed>>

/**
 * Milliseconds until a claim could take something: the earliest pending delivery of an enabled
 * webhook, no sooner than its lease (a send under way, here or in another process) and its
 * breaker allow; zero or less when one may be due now; undefined when nothing is pending at all.
 * One short statement, so that an idle worker need not run the claim's transaction to know.
 */
export const untilNextDue = async (sql: Queryable): Promise<number | undefined> => {
  const [{ wait_ms }] = await sql<{ wait_ms: number | null }[]>`
    SELECT (extract(epoch FROM min(GREATEST(d.next_attempt_at, d.lease_until, w.breaker_open_until)) - now()) * 1000)::float8 AS wait_ms
    FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
    WHERE d.status = 'pending' AND w.enabled`
  return wait_ms ?? undefined
}

/** What became of an attempt, as the deliveries metric counts it. */
export type AttemptOutcome = "delivered" | "failed" | "gave_up"

const describe = (result: SendResult): string => (result.status === null ? result.error ?? "no answer" : `HTTP ${result.status}`)

/**
 * Stores an attempt's outcome and the endpoint's breaker; a failure also counts against the
 * webhook, which is disabled after 3 days of them. The webhook's row is locked for the
 * read-and-write of its breaker, so two senders finishing at once both count.
 */
export const recordAttempt = (sql: Sql, row: Claimed, result: SendResult, now: Date, retryBaseMs: number): Promise<AttemptOutcome> =>
  sql.begin(async (tx) => {
    const attempts = row.attempts + 1
    const delivered = result.status !== null && isDelivered(result.status)
    const common = {
      attempts,
      last_attempt_at: now,
      lease_until: null,
      response_status: result.status,
      response_excerpt: result.excerpt,
      last_error: result.status === null ? result.error : null
    }
    const retry = delivered ? undefined : afterFailure(new Date(row.created_at), attempts, now, retryBaseMs)
    const outcome: AttemptOutcome = delivered ? "delivered" : retry?.kind === "retry" ? "failed" : "gave_up"
    await tx`UPDATE webhook_deliveries SET ${
      tx(
        retry === undefined
          ? { ...common, status: "delivered" }
          : retry.kind === "retry"
          ? { ...common, next_attempt_at: retry.at }
          : { ...common, status: "failed" }
      )
    } WHERE id = ${row.id}`
    const [webhook] = await tx<{ failing_since: Date | null; breaker_failures: number; breaker_opens: number; breaker_open_until: Date | null }[]>`
      SELECT failing_since, breaker_failures, breaker_opens, breaker_open_until FROM webhooks WHERE id = ${row.webhook_id} FOR NO KEY UPDATE`
    if (webhook === undefined) return outcome
    const breaker = afterAttempt(breakerOf(webhook), delivered, now, retryBaseMs)
    const failingSince = delivered ? null : webhook.failing_since === null ? now : new Date(webhook.failing_since)
    await tx`UPDATE webhooks SET ${
      tx({ failing_since: failingSince, breaker_failures: breaker.failures, breaker_opens: breaker.opens, breaker_open_until: breaker.openUntil })
    } WHERE id = ${row.webhook_id}`
    if (failingSince !== null && shouldDisable(failingSince, now)) {
      const reason = `Disabled at ${now.toISOString()}: every delivery failed since ${failingSince.toISOString()} ` +
        `(3 days); the last one: ${describe(result)}. PATCH {"enabled": true} re-enables it and sends the events kept meanwhile.`
      await tx`UPDATE webhooks SET enabled = false, disabled_reason = ${reason}, updated_at = now() WHERE id = ${row.webhook_id} AND enabled`
    }
    return outcome
  }) as Promise<AttemptOutcome>

/** A webhook re-enabled starts over: no failure streak, breaker closed. */
export const resetOnEnable = {
  disabled_reason: null,
  failing_since: null,
  breaker_failures: CLOSED.failures,
  breaker_opens: CLOSED.opens,
  breaker_open_until: CLOSED.openUntil
} as const

/**
 * Keeps at most `max` pending deliveries per webhook (one webhook, or all): past it the oldest
 * not being sent are marked failed with the reason, and counted per webhook for the log. A paused,
 * disabled or failing endpoint's backlog is bounded the same way.
 */
export const trimBacklogs = (sql: Queryable, max: number, webhookId?: string) =>
  sql<{ webhook_id: string; dropped: number }[]>`
    WITH cut AS (
      SELECT w.id, (
        SELECT d.id FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.status = 'pending' ORDER BY d.id DESC OFFSET ${max} LIMIT 1
      ) AS last
      FROM webhooks w ${webhookId === undefined ? sql`` : sql`WHERE w.id = ${webhookId}`}
    ), dropped AS (
      UPDATE webhook_deliveries d
      SET status = 'failed', lease_until = NULL,
          last_error = ${`Dropped unsent: more than ${max} deliveries were waiting for this webhook, and the oldest go first`}
      FROM cut
      WHERE cut.last IS NOT NULL AND d.webhook_id = cut.id AND d.status = 'pending' AND d.id <= cut.last
        AND (d.lease_until IS NULL OR d.lease_until < now())
      RETURNING d.webhook_id)
    SELECT webhook_id, count(*)::int AS dropped FROM dropped GROUP BY webhook_id`

/** The delivery log keeps finished deliveries 30 days. */
export const pruneDeliveries = (sql: Sql) =>
  sql`DELETE FROM webhook_deliveries WHERE status <> 'pending' AND created_at < now() - interval '30 days'`
