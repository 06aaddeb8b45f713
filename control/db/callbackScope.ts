import { Cause, Effect, Exit } from "effect"

/**
 * How postgres.js scopes a transaction or a savepoint: `sql.begin(callback)`, `tx.savepoint(callback)`
 * call `callback` with the scope's client once it is open, end the scope by the promise `callback`
 * returns (resolved: COMMIT or RELEASE; rejected: ROLLBACK, or ROLLBACK TO the savepoint) and settle
 * their own promise once that is done, with the callback's value or its rejection (or the failure of
 * BEGIN, COMMIT, of the connection).
 */
export type OpenScope<T> = (callback: (scoped: T) => Promise<unknown>) => PromiseLike<unknown>

/** Rejects a scope's callback so that postgres.js rolls it back. It never reaches a caller: see `inCallbackScope`. */
class ScopeAbandoned extends Error {
  constructor() {
    super("the scope's body failed or was interrupted: rolled back")
  }
}

/** A scope that ended well without calling its callback: postgres.js never does that. */
const neverOpened = Effect.die(new Error("the scope ended without running its callback"))

/** What the opening of a scope came to: its client, or its end before the callback ran (BEGIN failed). */
type Opening<T> = { readonly _tag: "Opened"; readonly scoped: T } | { readonly _tag: "EndedUnopened" }

/**
 * Runs `body` in a scope of postgres.js (see OpenScope), in the calling fiber: its context, its
 * tracing, and its interruption, which reaches the body. The scope's callback only hands its
 * client to the fiber and returns a promise that the fiber settles from the body's Exit:
 *
 * - success: the callback resolves with the value, and once the scope has ended as `ended` makes
 *   its promise an Effect (COMMIT, which may fail: then that is the call's failure) the call
 *   succeeds with the value;
 * - failure: the callback rejects (postgres.js rolls back); once the rollback is done, whatever
 *   its outcome, the caller sees the body's own failure (a SlugTaken, say);
 * - interruption (a deadline): the callback rejects so the scope rolls back and never commits, and
 *   the fiber does not wait for it: a hung connection must not hold the caller, the pool's own
 *   bounds end it.
 *
 * The scope's promise is always handled: once the fiber stopped waiting, its rejection is dropped.
 * An interruption while the scope is opening abandons it: the callback, once called, rejects at once.
 */
export const inCallbackScope = <T, A, E, R, E2, R2>(
  open: OpenScope<T>,
  body: (scoped: T) => Effect.Effect<A, E, R>,
  ended: (scope: () => PromiseLike<unknown>) => Effect.Effect<unknown, E2, R2>
): Effect.Effect<A, E | E2, R | R2> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.suspend(() => {
      let settle: { readonly resolve: (value: A) => void; readonly reject: (reason: ScopeAbandoned) => void } | undefined
      let abandoned = false
      const abandon = () => {
        abandoned = true
        settle?.reject(new ScopeAbandoned())
      }
      let scope!: Promise<unknown>
      const opening = Effect.callback<Opening<T>>((resume) => {
        // The executor turns a synchronous throw of `open` into the scope's rejection.
        scope = new Promise<unknown>((adopt) =>
          adopt(open((scoped) => {
            if (abandoned) return Promise.reject(new ScopeAbandoned())
            return new Promise<A>((resolve, reject) => {
              settle = { resolve, reject }
              resume(Effect.succeed({ _tag: "Opened", scoped }))
            })
          }))
        )
        // Also the one handler the scope's rejection always has: nothing is left unhandled.
        const endedUnopened = () => resume(Effect.succeed({ _tag: "EndedUnopened" }))
        scope.then(endedUnopened, endedUnopened)
        return Effect.sync(abandon)
      })
      const finish = (scoped: T) =>
        Effect.flatMap(Effect.exit(restore(body(scoped))), (exit): Effect.Effect<A, E | E2, R2> => {
          if (Exit.isSuccess(exit)) {
            settle!.resolve(exit.value)
            return Effect.as(restore(ended(() => scope)), exit.value)
          }
          abandon()
          if (Cause.hasInterrupts(exit.cause)) return Effect.failCause(exit.cause)
          const rolledBack = Effect.promise(() => scope.then(() => undefined, () => undefined))
          return Effect.andThen(restore(rolledBack), Effect.failCause(exit.cause))
        })
      return restore(opening).pipe(
        Effect.onInterrupt(() => Effect.sync(abandon)),
        Effect.flatMap((opening) => opening._tag === "Opened" ? finish(opening.scoped) : Effect.andThen(ended(() => scope), neverOpened))
      )
    })
  )
