import { Effect, type Scope } from "effect"
import { makeJobHealth } from "./jobHealth.ts"

/**
 * What a round of work found: more to do at once, nothing until the next poll (or a wake), or
 * nothing until a moment the round knows (the next retry due): `{ restMs }` instead of `idleMs`.
 */
export type RoundOutcome = "again" | "idle" | { readonly restMs: number }

export interface PollLoop {
  /** Ends the current rest at once; a wake while a round runs is kept for the rest after it. */
  readonly wake: () => void
}

/**
 * A background job's loop, forked in the scope: runs `round` forever, resting `idleMs` after an
 * idle round or what the round asked for (woken early by `wake` either way), and after a failure
 * backing off from 100 ms, doubling up to `maxBackoffMs`. Failures are reported through a JobHealth named `name`: once when they begin,
 * once when the job works again.
 */
export const pollLoop = <E, R>(
  name: string,
  round: Effect.Effect<RoundOutcome, E, R>,
  options: { readonly idleMs: number; readonly maxBackoffMs?: number }
): Effect.Effect<PollLoop, never, R | Scope.Scope> =>
  Effect.gen(function*() {
    const health = makeJobHealth(name)
    const maxBackoffMs = options.maxBackoffMs ?? 5_000
    let woken = false
    let wakeRest: (() => void) | undefined
    const wake = () => {
      woken = true
      wakeRest?.()
    }
    const rest = (ms: number) =>
      Effect.callback<void>((resume) => {
        if (woken) {
          woken = false
          return resume(Effect.void)
        }
        const done = () => {
          clearTimeout(timer)
          wakeRest = undefined
          woken = false
          resume(Effect.void)
        }
        const timer = setTimeout(done, ms)
        wakeRest = done
        return Effect.sync(() => {
          clearTimeout(timer)
          wakeRest = undefined
        })
      })
    let failures = 0
    const step = round.pipe(
      Effect.tap(() => health.succeeded),
      Effect.flatMap((outcome) => {
        failures = 0
        return outcome === "again" ? Effect.void : rest(outcome === "idle" ? options.idleMs : Math.max(0, outcome.restMs))
      }),
      Effect.catchCause((cause) => {
        failures++
        return Effect.andThen(health.failed(cause), rest(Math.min(maxBackoffMs, 100 * 2 ** failures)))
      })
    )
    yield* Effect.forkScoped(Effect.forever(step))
    return { wake }
  })
