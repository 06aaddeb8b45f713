import type { Sql } from "postgres"

/** What the RateLimit-* headers report for one allowance. */
export interface Allowance {
  readonly limit: number
  readonly remaining: number
  /** Seconds until the window resets. */
  readonly reset: number
  readonly exceeded: boolean
}

export interface Bucket {
  readonly key: string
  readonly limit: number
}

export const GENERAL_LIMIT = 300
export const ANALYTICS_LIMIT = 20
/** Requests without a valid key, per client address: enough for a typo, not for guessing keys. */
export const ANONYMOUS_LIMIT = 30

/** Each bucket's allowance after a count, and the window it was counted in. */
export interface Counted {
  readonly allowances: Array<Allowance>
  readonly windowStart: Date
}

const WINDOW_MS = 60_000

/** The start of the one-minute window `nowMs` falls in. */
export const windowOf = (nowMs: number): Date => new Date(nowMs - (nowMs % WINDOW_MS))

/**
 * Counts one request against each bucket in fixed one-minute windows. The counters live in
 * PostgreSQL, so every control process on the same database enforces one shared limit; one
 * statement per request. The time is the caller's (Effect's Clock, which tests can move): the
 * processes sharing a database keep their clocks in step (NTP), and a skew of a few milliseconds
 * only moves which window a request at the boundary falls in. The row locks of the upsert order
 * concurrent counts of a bucket: each sees a count of its own.
 */
export const count = async (sql: Sql, buckets: ReadonlyArray<Bucket>, nowMs: number): Promise<Counted> => {
  const keys = buckets.map((b) => b.key)
  const windowStart = windowOf(nowMs)
  // Rows locked in one order by every statement, so two counts sharing buckets cannot deadlock.
  const rows = await sql<{ bucket: string; hits: number }[]>`
    INSERT INTO rate_limits (bucket, window_start, hits)
    SELECT k, ${windowStart}::timestamptz, 1 FROM unnest(${keys}::text[]) AS k ORDER BY k
    ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limits.hits + 1
    RETURNING bucket, hits`
  const reset = Math.max(1, Math.ceil((windowStart.getTime() + WINDOW_MS - nowMs) / 1000))
  const allowances = buckets.map((bucket) => {
    const row = rows.find((r) => r.bucket === bucket.key)!
    return {
      limit: bucket.limit,
      remaining: Math.max(0, bucket.limit - row.hits),
      reset,
      exceeded: row.hits > bucket.limit
    }
  })
  return { allowances, windowStart }
}

export const hit = async (sql: Sql, buckets: ReadonlyArray<Bucket>, nowMs: number): Promise<Array<Allowance>> =>
  (await count(sql, buckets, nowMs)).allowances

/**
 * Takes back one count of each bucket in the window it was made in (a window already swept is
 * left alone: nothing there to take back).
 */
export const uncount = (sql: Sql, buckets: ReadonlyArray<Bucket>, windowStart: Date) =>
  sql`UPDATE rate_limits SET hits = hits - 1
      WHERE bucket IN ${sql(buckets.map((b) => b.key))} AND window_start = ${windowStart} AND hits > 0`

/** Old windows are never read again. */
export const sweep = (sql: Sql, nowMs: number) => sql`DELETE FROM rate_limits WHERE window_start < ${new Date(nowMs - 2 * WINDOW_MS)}`

export const rateLimitHeaders = (allowance: Allowance): Record<string, string> => {
  const headers: Record<string, string> = {
    "ratelimit-limit": String(allowance.limit),
    "ratelimit-remaining": String(allowance.remaining),
    "ratelimit-reset": String(allowance.reset)
  }
  if (allowance.exceeded) headers["retry-after"] = String(allowance.reset)
  return headers
}
