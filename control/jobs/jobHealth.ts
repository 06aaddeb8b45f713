import { Cause, Effect } from "effect"

/**
 * How a background job tells the operator about its failures: once when a run of failures
 * begins (the reason in one line; a stack only for an unexpected defect, not for a database or
 * bus that is away) and once when it works again, never every round of an outage.
 */
export interface JobHealth {
  readonly failed: (cause: Cause.Cause<unknown>) => Effect.Effect<void>
  readonly succeeded: Effect.Effect<void>
}

/**
 * The first failure of a cause, on one line: the error that happened, not the wrappers around it
 * (Effect.tryPromise's UnknownError says only that a promise rejected).
 */
export const reasonOf = (cause: Cause.Cause<unknown>): string => {
  let error: unknown = Cause.squash(cause)
  for (let depth = 0; depth < 5 && error instanceof Error && Cause.isUnknownError(error) && error.cause !== undefined; depth++) {
    error = error.cause
  }
  const text = error instanceof Error ? error.message : typeof error === "string" ? error : JSON.stringify(error)
  return (text ?? String(error)).replace(/\s+/g, " ").trim() || "unknown failure"
}

export const makeJobHealth = (name: string): JobHealth => {
  let failingSince: number | undefined
  let failedRounds = 0
  return {
    failed: (cause) =>
      Effect.suspend(() => {
        failedRounds++
        if (failingSince !== undefined) return Effect.void
        failingSince = Date.now()
        const defect = cause.reasons.some((reason) => reason._tag === "Die")
        const message = `${name} failed: ${reasonOf(cause)}; retrying (logged again once it works)`
        return defect ? Effect.logError(message, cause) : Effect.logWarning(message)
      }),
    succeeded: Effect.suspend(() => {
      if (failingSince === undefined) return Effect.void
      const seconds = Math.round((Date.now() - failingSince) / 1000)
      const rounds = failedRounds
      failingSince = undefined
      failedRounds = 0
      return Effect.logInfo(`${name} works again after ${seconds} s (${rounds} failed rounds)`)
    })
  }
}
