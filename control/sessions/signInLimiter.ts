import type { Sql } from "postgres"
import { type Allowance, type Bucket, count, uncount } from "../ratelimit/rateLimiter.ts"

/**
 * Wrong passwords, counted per account and per client address in the shared one-minute windows:
 * after FAILURES_PER_MINUTE in a window, every sign-in to that account or from that address is
 * refused (429) until the window ends, right password or not.
 *
 * An attempt is counted before its password is checked, in one statement (a reservation), and
 * checked only when that count is within the limit: however many attempts arrive together, at
 * most FAILURES_PER_MINUTE of them are checked against a bucket whose earlier attempts all failed.
 * A right password, and an attempt refused without a check, give their reservation back, so
 * the counters hold the wrong passwords of the window (and the checks under way), nothing else.
 */
export const FAILURES_PER_MINUTE = 5

export const failureBuckets = (email: string, address: string): ReadonlyArray<Bucket> => [
  { key: `signin:account:${email.trim().toLowerCase()}`, limit: FAILURES_PER_MINUTE },
  { key: `signin:address:${address}`, limit: FAILURES_PER_MINUTE }
]

/** A counted attempt: checked when `refused` is undefined, else the allowance that ran out. */
export interface Reservation {
  readonly buckets: ReadonlyArray<Bucket>
  readonly windowStart: Date
  readonly refused: Allowance | undefined
}

/** Counts one attempt against every bucket, and says whether it may be checked. */
export const reserveAttempt = async (sql: Sql, buckets: ReadonlyArray<Bucket>, nowMs: number): Promise<Reservation> => {
  const { allowances, windowStart } = await count(sql, buckets, nowMs)
  // Past the limit in any bucket: the allowance that resets last is the one to wait for.
  const refused = allowances.filter((a) => a.exceeded).sort((a, b) => b.reset - a.reset)[0]
  return { buckets, windowStart, refused: refused === undefined ? undefined : { ...refused, remaining: 0 } }
}

/** Gives a reservation back: the attempt was no wrong password. */
export const releaseAttempt = (sql: Sql, reservation: Reservation) => uncount(sql, reservation.buckets, reservation.windowStart)
