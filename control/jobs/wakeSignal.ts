import { Context, Effect, Exit, type Scope } from "effect"

/**
 * A worker's wake-up after a commit. A transaction that gives the worker work marks the worker's
 * signal; the worker is woken once that transaction has committed: not before (it could not see
 * the rows yet) and not at a guessed moment. `wakeAfterCommit`, one of the process's database call
 * hooks (control/db/callHooks.ts), collects the marks of each call and wakes them when the call
 * succeeds; a mark made outside any call wakes at once.
 */
export interface WakeSignal {
  /** The running database call gave the worker work: wake it once the call has committed. */
  readonly mark: Effect.Effect<void>
  /** Wakes the worker now: its work committed already, outside a database call of the repositories. */
  readonly wake: () => void
  /** Sets the worker's wake-up for as long as the scope lives. */
  readonly subscribe: (wake: () => void) => Effect.Effect<void, never, Scope.Scope>
}

/** The wake-ups marked during the database call being run; none outside one. */
const PendingWakes = Context.Reference<Set<() => void> | undefined>("ricochet/PendingWakes", { defaultValue: () => undefined })

export const makeWakeSignal = (): WakeSignal => {
  let subscriber: (() => void) | undefined
  const wake = () => subscriber?.()
  return {
    wake,
    mark: Effect.flatMap(Effect.service(PendingWakes), (pending) =>
      Effect.sync(() => {
        if (pending === undefined) wake()
        else pending.add(wake)
      })),
    subscribe: (callback) =>
      Effect.acquireRelease(
        Effect.sync(() => {
          subscriber = callback
        }),
        () =>
          Effect.sync(() => {
            if (subscriber === callback) subscriber = undefined
          })
      )
  }
}

/**
 * Around a database call: the wake-ups marked during it run once it has succeeded, that is once its
 * transaction has committed; a call that failed rolled back, and woke nothing. A call inside
 * another (a query within a transaction's body) leaves its marks to the outer one.
 */
export const wakeAfterCommit = <A, E, R>(call: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.service(PendingWakes), (outer) => {
    if (outer !== undefined) return call
    const pending = new Set<() => void>()
    return call.pipe(
      Effect.provideService(PendingWakes, pending),
      Effect.onExit((exit) =>
        Exit.isSuccess(exit)
          ? Effect.sync(() => {
            for (const wake of pending) wake()
          })
          : Effect.void)
    )
  })
