import postgres from "postgres"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { migrate } from "../../control/db/migrate.ts"
import { failureBuckets, FAILURES_PER_MINUTE, releaseAttempt, reserveAttempt } from "../../control/sessions/signInLimiter.ts"
import { windowOf } from "../../control/ratelimit/rateLimiter.ts"
import { createTestDatabase } from "../support/processes.ts"

/**
 * The wrong-password limiter's reservations on PostgreSQL, many connections at once: an attempt
 * is counted before its password is checked, a right one (and a refused one) gives its count back.
 * A sign-in does what `attempt` does here: reserve, check only when within the limit, release
 * when right.
 */
describe("sign-in reservations on PostgreSQL", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let sql: postgres.Sql

  beforeAll(async () => {
    db = await createTestDatabase()
    sql = postgres(db.url, { max: 12, onnotice: () => {} })
    await migrate(sql)
  })
  afterAll(async () => {
    await sql?.end({ timeout: 1 })
    await db?.drop()
  })
  // The limiter takes the time from its caller: every test counts in one window of its own.
  let now = Date.UTC(2026, 0, 1, 12, 0, 30)
  beforeEach(() => {
    now += 60_000
  })

  /** One sign-in attempt: "checked" or "refused"; a right password gives the reservation back. */
  const attempt = async (email: string, address: string, right: boolean): Promise<"checked" | "refused"> => {
    const reservation = await reserveAttempt(sql, failureBuckets(email, address), now)
    if (reservation.refused !== undefined) {
      await releaseAttempt(sql, reservation)
      return "refused"
    }
    if (right) await releaseAttempt(sql, reservation)
    return "checked"
  }

  const hits = async (key: string) =>
    (await sql<{ hits: number }[]>`SELECT hits FROM rate_limits WHERE bucket = ${key} AND window_start = ${windowOf(now)}`)[0]?.hits ?? 0

  it("lets five of 25 simultaneous reservations of one account through, however they interleave", async () => {
    const reservations = await Promise.all(Array.from({ length: 25 }, (_, i) => reserveAttempt(sql, failureBuckets("race@example.test", `198.51.100.${i}`), now)))
    expect(reservations.filter((r) => r.refused === undefined)).toHaveLength(FAILURES_PER_MINUTE)
    for (const { refused } of reservations.filter((r) => r.refused !== undefined)) {
      expect(refused).toMatchObject({ limit: 5, remaining: 0, exceeded: true })
      // Counted 30 s into the window.
      expect(refused!.reset).toBe(30)
    }
  })

  it("never locks an account for right passwords: each gives its reservation back", async () => {
    const outcomes = []
    for (let i = 0; i < 8; i++) outcomes.push(await attempt("right@example.test", "192.0.2.1", true))
    expect(outcomes).toEqual(Array(8).fill("checked"))
    expect(await hits("signin:account:right@example.test")).toBe(0)
    expect(await hits("signin:address:192.0.2.1")).toBe(0)
  })

  it("does not forgive wrong passwords for a right one: four wrong, a right one, one more wrong, then refused", async () => {
    const sequence = [false, false, false, false, true, false, true, false]
    const outcomes = []
    for (const right of sequence) outcomes.push(await attempt("mixed@example.test", "192.0.2.2", right))
    expect(outcomes).toEqual(["checked", "checked", "checked", "checked", "checked", "checked", "refused", "refused"])
    expect(await hits("signin:account:mixed@example.test")).toBe(5)
  })

  it("gives a refused attempt's count back: it weighs on neither the account nor the address", async () => {
    for (let i = 0; i < 5; i++) expect(await attempt("locked@example.test", "192.0.2.3", false)).toBe("checked")
    // The account is locked; from another address the attempt is refused and that address keeps its five.
    expect(await attempt("locked@example.test", "192.0.2.4", true)).toBe("refused")
    expect(await hits("signin:address:192.0.2.4")).toBe(0)
    for (let i = 0; i < 5; i++) expect(await attempt(`other${i}@example.test`, "192.0.2.4", false)).toBe("checked")
    expect(await attempt("other5@example.test", "192.0.2.4", true)).toBe("refused")
    expect(await hits("signin:account:locked@example.test")).toBe(5)
  })

  it("gives back in the window it counted in, never in a later one", async () => {
    const reservation = await reserveAttempt(sql, failureBuckets("late@example.test", "192.0.2.5"), now)
    await reserveAttempt(sql, failureBuckets("late@example.test", "192.0.2.5"), now)
    // As if the minute had ended between the reservation and its release.
    await releaseAttempt(sql, { ...reservation, windowStart: new Date(reservation.windowStart.getTime() - 60_000) })
    expect(await hits("signin:account:late@example.test")).toBe(2)
    await releaseAttempt(sql, reservation)
    expect(await hits("signin:account:late@example.test")).toBe(1)
  })
})
