/**
 * When a failed delivery is tried again, and when a webhook gives up. Pure, so the schedule is
 * unit tested: the delay doubles from the configured base up to an hour, with up to 10 % jitter so
 * a receiver coming back is not hit by every backlog at the same instant; a delivery is abandoned
 * 24 h after it was created; a webhook failing without a success for 3 days is disabled.
 */
export const RETRY_WINDOW_MS = 24 * 3_600_000
export const MAX_DELAY_MS = 3_600_000
export const DISABLE_AFTER_MS = 3 * 24 * 3_600_000

export const retryDelayMs = (attempts: number, baseMs: number, random = Math.random()): number => {
  const delay = Math.min(MAX_DELAY_MS, baseMs * 2 ** Math.max(0, attempts - 1))
  return Math.round(delay * (1 + 0.1 * random))
}

export type FailedAttemptOutcome =
  | { readonly kind: "retry"; readonly at: Date }
  | { readonly kind: "abandon" }

/** After the `attempts`-th attempt (counting it) failed at `now`. */
export const afterFailure = (createdAt: Date, attempts: number, now: Date, baseMs: number, random = Math.random()): FailedAttemptOutcome => {
  const at = new Date(now.getTime() + retryDelayMs(attempts, baseMs, random))
  return at.getTime() - createdAt.getTime() > RETRY_WINDOW_MS ? { kind: "abandon" } : { kind: "retry", at }
}

/** Whether a webhook failing since `failingSince` (first failure after its last success) is disabled at `now`. */
export const shouldDisable = (failingSince: Date | null, now: Date): boolean =>
  failingSince !== null && now.getTime() - failingSince.getTime() >= DISABLE_AFTER_MS

/** What a receiver's answer means: 2xx is delivered; anything else (redirects included, never followed) is a failure. */
export const isDelivered = (status: number): boolean => status >= 200 && status < 300
