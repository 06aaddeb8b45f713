import type { Sql } from "postgres"
import { type Allowance, type Bucket, hit } from "../ratelimit/rateLimiter.ts"

/**
 * Wrong passwords, counted per account and per client address in the shared one-minute windows:
 * after FAILURES_PER_MINUTE in a window, every sign-in to that account or from that address is
 * refused (429) until the window ends, right password or not.
 */
export const FAILURES_PER_MINUTE = 5

export const failureBuckets = (email: string, address: string): ReadonlyArray<Bucket> => [
  { key: `signin:account:${email.trim().toLowerCase()}`, limit: FAILURES_PER_MINUTE },
  { key: `signin:address:${address}`, limit: FAILURES_PER_MINUTE }
]

/** The allowance already used up, if any, without counting this attempt. */
export const blocked = async (sql: Sql, buckets: ReadonlyArray<Bucket>): Promise<Allowance | undefined> => {
  const rows = await sql<{ hits: number; reset: number }[]>`
    SELECT hits, extract(epoch from (window_start + interval '1 minute' - now()))::float8 AS reset
    FROM rate_limits
    WHERE bucket IN ${sql(buckets.map((b) => b.key))} AND window_start = date_trunc('minute', now()) AND hits >= ${FAILURES_PER_MINUTE}
    ORDER BY reset DESC LIMIT 1`
  const [row] = rows
  return row === undefined
    ? undefined
    : { limit: FAILURES_PER_MINUTE, remaining: 0, reset: Math.max(1, Math.ceil(row.reset)), exceeded: true }
}

/** Counts one wrong password against both buckets. */
export const countFailure = (sql: Sql, buckets: ReadonlyArray<Bucket>) => hit(sql, buckets)
