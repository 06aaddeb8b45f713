import postgres from "postgres"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { migrate } from "../../control/db/migrate.ts"
import { publishPending, receiveOutboxRow } from "../../control/outbox/publisher.ts"
import type { Bus } from "../../shared/bus/bus.ts"
import type { BusChange, ChangeEvent } from "../../shared/bus/events.ts"
import { createTestDatabase } from "../support/processes.ts"

/**
 * publishPending against PostgreSQL with a bus that never takes the events (a NATS connection
 * that hangs): the transaction must end within the publish timeout, not stay open (holding the
 * publisher lock and a connection) for as long as the bus is away, and the rows stay unsent.
 */
describe("publishPending with a bus that does not answer", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let sql: postgres.Sql
  const event: ChangeEvent = { type: "link.deleted", id: "lnk_1", host: "a.localhost", slug: "x" }
  const busWith = (publish: Bus["publish"], published: Array<ChangeEvent> = [], changes: Array<BusChange> = []): Bus => ({
    publish: async (sent) => {
      await publish(sent)
      published.push(...sent.map((change) => change.event))
      changes.push(...sent)
    },
    subscribe: () => () => {},
    isConnected: () => true,
    onState: () => () => {},
    close: async () => {}
  })

  beforeAll(async () => {
    db = await createTestDatabase()
    sql = postgres(db.url, { max: 2, onnotice: () => {} })
    await migrate(sql)
    await sql`INSERT INTO outbox (topic, payload) VALUES ('ricochet.changes.link.deleted', ${sql.json(event as never)})`
  })
  afterAll(async () => {
    await sql?.end({ timeout: 1 })
    await db?.drop()
  })

  it("gives up within the timeout, leaves the rows unsent and the lock free, and sends them once the bus answers", async () => {
    const started = Date.now()
    await expect(publishPending(sql, busWith(() => new Promise(() => {})), 300)).rejects.toThrow(/did not take 1 events within 300 ms/)
    expect(Date.now() - started).toBeLessThan(2_000)
    expect((await sql`SELECT count(*)::int AS n FROM outbox WHERE sent_at IS NULL`)[0].n).toBe(1)
    // No transaction of ours is left open on the server.
    const open = await sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`
    expect(open[0].n).toBe(0)

    const published: Array<ChangeEvent> = []
    const changes: Array<BusChange> = []
    expect(await publishPending(sql, busWith(async () => {}, published, changes), 300)).toBe(1)
    expect(published).toEqual([event])
    // Sent with the time the row was written (the engines' bus lag starts there), not the publish time.
    const [{ written }] = await sql<{ written: Date }[]>`SELECT created_at AS written FROM outbox`
    expect(Math.abs(changes[0].changedAt - written.getTime())).toBeLessThan(1)
    expect((await sql`SELECT count(*)::int AS n FROM outbox WHERE sent_at IS NULL`)[0].n).toBe(0)
  })

  it("refuses a row that is not a change event (logged, counted, marked sent) and publishes the others around it", async () => {
    const good: ChangeEvent = { type: "domain.deleted", id: "dom_1", host: "b.localhost" }
    const malformed = [
      { type: "link.deleted", id: "lnk_2" },
      { type: "link.exploded", id: "lnk_3", host: "a.localhost", slug: "y" },
      { type: "link.upserted", link: { id: "lnk_4", slug: 7 } }
    ]
    for (const payload of [malformed[0], good, malformed[1], malformed[2]]) {
      await sql`INSERT INTO outbox (topic, payload) VALUES ('ricochet.changes.x', ${sql.json(payload as never)})`
    }
    const errors = vi.spyOn(console, "error").mockImplementation(() => {})
    const refusedBefore = receiveOutboxRow.refused()
    const published: Array<ChangeEvent> = []
    let logged: Array<string>
    try {
      expect(await publishPending(sql, busWith(async () => {}, published), 300)).toBe(4)
    } finally {
      logged = errors.mock.calls.map(([line]) => String(line))
      errors.mockRestore()
    }
    expect(published).toEqual([good])
    expect(receiveOutboxRow.refused() - refusedBefore).toBe(3)
    expect(logged.some((line) => /^outbox: refused .*row \d+:/.test(line))).toBe(true)
    expect((await sql`SELECT count(*)::int AS n FROM outbox WHERE sent_at IS NULL`)[0].n).toBe(0)
  })
})
