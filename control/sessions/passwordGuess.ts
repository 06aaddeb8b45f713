import { Clock, Effect } from "effect"
import { HttpEffect, HttpServerResponse } from "effect/http"
import { RateLimitExceeded } from "../kernel/errors.ts"
import { query } from "../db/sql.ts"
import type { Bucket } from "../ratelimit/rateLimiter.ts"
import { rateLimitHeaders } from "../ratelimit/rateLimiter.ts"
import { releaseAttempt, reserveAttempt } from "./signInLimiter.ts"

/**
 * One password guess (signing in, or the current password of a password change) within the
 * wrong-password limit of `buckets`: the attempt is reserved first, `check` runs only when the
 * reservation is within the limit, and a right guess (`check` gives a value) gives the reservation
 * back. A wrong guess (undefined) stays counted; so does one whose check fails or is interrupted.
 * Past the limit: RateLimitExceeded, the answer carrying the allowance that ran out.
 */
export const guessPassword = <A, E, R>(buckets: ReadonlyArray<Bucket>, check: Effect.Effect<A | undefined, E, R>) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const reservation = yield* query((sql) => reserveAttempt(sql, buckets, now))
    const { refused } = reservation
    if (refused !== undefined) {
      yield* query((sql) => releaseAttempt(sql, reservation))
      const headers = rateLimitHeaders(refused)
      yield* HttpEffect.appendPreResponseHandler((_request, response) => Effect.succeed(HttpServerResponse.setHeaders(response, headers)))
      return yield* new RateLimitExceeded({ message: `Too many wrong passwords; retry in ${refused.reset} s` })
    }
    const right = yield* check
    if (right !== undefined) yield* query((sql) => releaseAttempt(sql, reservation))
    return right
  })
