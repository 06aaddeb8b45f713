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

/**
 * Counts one request against each bucket in fixed one-minute windows. The counters live in
 * PostgreSQL, so every control process on the same database enforces one shared limit; one
 * statement per request, and the window comes from the database clock so processes agree.
 */
export const hit = async (sql: Sql, buckets: ReadonlyArray<Bucket>): Promise<Array<Allowance>> => {
  const keys = buckets.map((b) => b.key)
  const rows = await sql<{ bucket: string; hits: number; reset: number }[]>`
    INSERT INTO rate_limits (bucket, window_start, hits)
    SELECT k, date_trunc('minute', now()), 1 FROM unnest(${keys}::text[]) AS k
    ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limits.hits + 1
    RETURNING bucket, hits,
      extract(epoch from (window_start + interval '1 minute' - now()))::float8 AS reset`
  return buckets.map((bucket) => {
    const row = rows.find((r) => r.bucket === bucket.key)!
    return {
      limit: bucket.limit,
      remaining: Math.max(0, bucket.limit - row.hits),
      reset: Math.max(1, Math.ceil(row.reset)),
      exceeded: row.hits > bucket.limit
    }
  })
}

/** Old windows are never read again. */
export const sweep = (sql: Sql) => sql`DELETE FROM rate_limits WHERE window_start < now() - interval '2 minutes'`

export const rateLimitHeaders = (allowance: Allowance): Record<string, string> => {
  const headers: Record<string, string> = {
    "ratelimit-limit": String(allowance.limit),
    "ratelimit-remaining": String(allowance.remaining),
    "ratelimit-reset": String(allowance.reset)
  }
  if (allowance.exceeded) headers["retry-after"] = String(allowance.reset)
  return headers
}
