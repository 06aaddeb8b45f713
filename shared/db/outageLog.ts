/**
 * What one database has told the log about its outage. During an outage every call fails the same
 * way: one line when it begins, one when the database answers again, not one per call. Each
 * Database (shared/db/Database.ts) has its own, made with it: two databases in one process (tests
 * run several controls in one) keep apart, and a call counts only against the database it was made on.
 */
export interface OutageLog {
  /** A call found the database unavailable; the first of an outage says why. */
  readonly unavailable: (cause: unknown) => void
  /** A call was answered; the first after an outage says how long it lasted and how many calls it failed. */
  readonly answered: () => void
}

export const makeOutageLog = (): OutageLog => {
  let since: number | undefined
  let failedCalls = 0
  return {
    unavailable: (cause) => {
      failedCalls++
      if (since !== undefined) return
      since = Date.now()
      console.warn(`database unavailable, answering 503: ${cause instanceof Error ? cause.message : String(cause)} (logged again once it answers)`)
    },
    answered: () => {
      if (since === undefined) return
      console.log(`database answers again after ${Math.round((Date.now() - since) / 1000)} s (${failedCalls} calls answered 503 meanwhile)`)
      since = undefined
      failedCalls = 0
    }
  }
}
