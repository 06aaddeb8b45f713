import { Cause, Data } from "effect"

/**
 * A start that cannot go on for a reason the operator can act on (a data directory another process
 * holds, an engine id in use, a database that refuses): one line, naming the setting to change,
 * logged at level error without a stack. Unexpected defects keep their stack.
 */
export class StartupFailure extends Data.TaggedError("StartupFailure")<{ readonly message: string }> {}

/** The StartupFailure that ended a start, if that is what ended it. */
export const startupFailureOf = (cause: Cause.Cause<unknown>): StartupFailure | undefined => {
  for (const reason of cause.reasons) {
    const error = reason._tag === "Fail" ? reason.error : reason._tag === "Die" ? reason.defect : undefined
    if (error instanceof StartupFailure) return error
  }
  return undefined
}
