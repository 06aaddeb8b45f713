import postgres from "postgres"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { migrate } from "../../control/db/migrate.ts"
import { untilNextDue } from "../../control/webhooks/deliveryQueue.ts"
import { createTestDatabase } from "../support/processes.ts"

/**
 * An idle delivery worker asks untilNextDue how long it may rest instead of running a claim: it
 * must never say "later" (or "nothing") while a claim could take a delivery, and should not say
 * "now" for deliveries no claim can take (a send under way, an open breaker, a disabled webhook).
 */
describe("untilNextDue: how long until a claim could take a delivery", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let sql: postgres.Sql

  beforeAll(async () => {
    db = await createTestDatabase()
    sql = postgres(db.url, { max: 1, onnotice: () => {} })
    await migrate(sql)
    await sql`INSERT INTO workspaces (id, name, slug, plan) VALUES ('ws_1', 'One', 'one', 'pro')`
  })
  afterAll(async () => {
    await sql?.end()
    await db?.drop()
  })
  beforeEach(async () => {
    await sql`DELETE FROM webhooks`
  })

  type Webhook = { enabled?: boolean; breakerOpenSeconds?: number }
  type Delivery = { dueSeconds: number; leasedSeconds?: number; status?: "pending" | "delivered" | "failed" }
  const given = async (deliveries: ReadonlyArray<Delivery & { webhook?: string }>, webhooks: Record<string, Webhook> = { wh_1: {} }) => {
    for (const [id, webhook] of Object.entries(webhooks)) {
      await sql`INSERT INTO webhooks (id, workspace_id, url, events, secret, enabled, breaker_open_until)
        VALUES (${id}, 'ws_1', 'https://example.com/hook', ${["link.created"]}, 'secret', ${webhook.enabled ?? true},
          ${webhook.breakerOpenSeconds === undefined ? null : sql`now() + make_interval(secs => ${webhook.breakerOpenSeconds})`})`
    }
    for (const [i, d] of deliveries.entries()) {
      await sql`INSERT INTO webhook_deliveries (webhook_id, message_id, event_type, order_key, payload, status, next_attempt_at, lease_until)
        VALUES (${d.webhook ?? "wh_1"}, ${`msg_${i}`}, 'link.created', ${`lnk_${i}`}, '{}', ${d.status ?? "pending"},
          now() + make_interval(secs => ${d.dueSeconds}),
          ${d.leasedSeconds === undefined ? null : sql`now() + make_interval(secs => ${d.leasedSeconds})`})`
    }
  }

  const cases: ReadonlyArray<{ name: string; deliveries: ReadonlyArray<Delivery & { webhook?: string }>; webhooks?: Record<string, Webhook>; expected: "nothing" | "now" | number }> = [
    { name: "no deliveries at all", deliveries: [], expected: "nothing" },
    { name: "only finished deliveries", deliveries: [{ dueSeconds: -5, status: "delivered" }, { dueSeconds: -5, status: "failed" }], expected: "nothing" },
    { name: "a delivery due now", deliveries: [{ dueSeconds: 0 }], expected: "now" },
    { name: "a delivery overdue", deliveries: [{ dueSeconds: -30 }], expected: "now" },
    { name: "a retry due in 30 s", deliveries: [{ dueSeconds: 30 }], expected: 30 },
    { name: "the earliest of several retries", deliveries: [{ dueSeconds: 90 }, { dueSeconds: 12 }, { dueSeconds: 45 }], expected: 12 },
    { name: "a due delivery being sent (leased 60 s)", deliveries: [{ dueSeconds: -1, leasedSeconds: 60 }], expected: 60 },
    { name: "a lease that lapsed (its sender died)", deliveries: [{ dueSeconds: -10, leasedSeconds: -2 }], expected: "now" },
    { name: "a due delivery behind an open breaker (20 s)", deliveries: [{ dueSeconds: -1 }], webhooks: { wh_1: { breakerOpenSeconds: 20 } }, expected: 20 },
    { name: "a breaker that is half-open (its time passed)", deliveries: [{ dueSeconds: -1 }], webhooks: { wh_1: { breakerOpenSeconds: -1 } }, expected: "now" },
    { name: "a disabled webhook's deliveries", deliveries: [{ dueSeconds: -1 }], webhooks: { wh_1: { enabled: false } }, expected: "nothing" },
    {
      name: "a disabled webhook's beside an enabled one's retry",
      deliveries: [{ dueSeconds: -1, webhook: "wh_off" }, { dueSeconds: 25, webhook: "wh_on" }],
      webhooks: { wh_off: { enabled: false }, wh_on: {} },
      expected: 25
    }
  ]

  it.each(cases)("$name", async ({ deliveries, webhooks, expected }) => {
    await given(deliveries, webhooks)
    const waitMs = await untilNextDue(sql)
    if (expected === "nothing") expect(waitMs).toBeUndefined()
    else if (expected === "now") expect(waitMs).toBeLessThanOrEqual(0)
    else {
      // The statement runs a moment after the rows were written.
      expect(waitMs).toBeGreaterThan(expected * 1000 - 5_000)
      expect(waitMs).toBeLessThanOrEqual(expected * 1000)
    }
  })
})
