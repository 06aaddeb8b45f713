/**
 * The circuit breaker of one endpoint (webhook), so an endpoint that keeps failing (timing out,
 * refusing, answering 5xx) stops taking sending slots while its deliveries wait:
 *
 * - closed: its due deliveries are claimed as usual (up to the endpoint's cap at once); a success
 *   resets the count of consecutive failed attempts, and the FAILURES_TO_OPEN-th opens it;
 * - open until `openUntil`: none of its deliveries are claimed;
 * - half-open from `openUntil` on: one delivery is claimed (the probe). Its success closes the
 *   breaker; its failure opens it again for twice as long, up to a ceiling.
 *
 * The cool-down grows from COOL_DOWN_RETRY_BASES retry bases (30 s with the default 5 s base) by
 * doubling up to MAX_COOL_DOWN_RETRY_BASES (10 minutes), so it scales with
 * RICOCHET_WEBHOOK_RETRY_BASE_SECONDS like the retries it pauses. Pure: the delivery worker reads
 * and writes the state in the endpoint's row.
 */
export const FAILURES_TO_OPEN = 5
export const COOL_DOWN_RETRY_BASES = 6
export const MAX_COOL_DOWN_RETRY_BASES = 120

export interface BreakerState {
  /** Failed attempts since the last success. */
  readonly failures: number
  /** How many times in a row it opened (the probes that failed, plus one): what the cool-down grows with. */
  readonly opens: number
  /** Null while closed; open before this instant, half-open from it on. */
  readonly openUntil: Date | null
}

export const CLOSED: BreakerState = { failures: 0, opens: 0, openUntil: null }

export const coolDownMs = (opens: number, retryBaseMs: number): number =>
  Math.min(MAX_COOL_DOWN_RETRY_BASES, COOL_DOWN_RETRY_BASES * 2 ** Math.max(0, opens - 1)) * retryBaseMs

const open = (state: BreakerState, failures: number, now: Date, retryBaseMs: number): BreakerState => {
  const opens = state.opens + 1
  return { failures, opens, openUntil: new Date(now.getTime() + coolDownMs(opens, retryBaseMs)) }
}

/** The state after an attempt that ended at `now`. */
export const afterAttempt = (state: BreakerState, delivered: boolean, now: Date, retryBaseMs: number): BreakerState => {
  if (delivered) return CLOSED
  const failures = state.failures + 1
  if (state.openUntil === null) return failures >= FAILURES_TO_OPEN ? open(state, failures, now, retryBaseMs) : { ...state, failures }
  // Open: a send that started before it opened ended; it neither extends nor closes the cool-down.
  if (now < state.openUntil) return { ...state, failures }
  // Half-open: the probe failed.
  return open(state, failures, now, retryBaseMs)
}

/** How many more of the endpoint's deliveries may be sent now, with `inFlight` of them under way. */
export const roomFor = (state: BreakerState, now: Date, inFlight: number, cap: number): number => {
  if (state.openUntil === null) return Math.max(0, cap - inFlight)
  if (now < state.openUntil) return 0
  return inFlight === 0 ? 1 : 0
}
