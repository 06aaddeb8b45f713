import { Effect, Exit, Scope } from "effect"
import { describe, expect, it } from "vitest"
import { makeWakeSignal, wakeAfterCommit } from "../../control/jobs/wakeSignal.ts"

/** A worker's wake-up after the commit that gave it work (control/jobs/wakeSignal.ts). */
describe("a wake signal", () => {
  const subscribed = Effect.gen(function*() {
    const signal = makeWakeSignal()
    const woken: Array<string> = []
    yield* signal.subscribe(() => woken.push("woken"))
    return { signal, woken }
  })

  it("wakes the worker once the call that marked it has succeeded, not while it runs", async () => {
    const order = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const { signal, woken } = yield* subscribed
      yield* wakeAfterCommit(Effect.gen(function*() {
        yield* signal.mark
        yield* signal.mark
        woken.push("still in the transaction")
      }))
      return woken
    })))
    expect(order).toEqual(["still in the transaction", "woken"])
  })

  it("wakes nothing after a call that failed (rolled back)", async () => {
    const woken = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const { signal, woken } = yield* subscribed
      yield* Effect.exit(wakeAfterCommit(Effect.andThen(signal.mark, Effect.fail("rolled back"))))
      return woken
    })))
    expect(woken).toEqual([])
  })

  it("leaves the marks of a call inside another to the outer one", async () => {
    const order = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const { signal, woken } = yield* subscribed
      yield* wakeAfterCommit(Effect.gen(function*() {
        yield* wakeAfterCommit(signal.mark)
        woken.push("outer still running")
      }))
      return woken
    })))
    expect(order).toEqual(["outer still running", "woken"])
  })

  it("wakes at once when marked outside any database call", async () => {
    const woken = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const { signal, woken } = yield* subscribed
      yield* signal.mark
      return [...woken]
    })))
    expect(woken).toEqual(["woken"])
  })

  it("stops waking a worker whose scope has closed", async () => {
    const signal = makeWakeSignal()
    const woken: Array<string> = []
    const scope = Effect.runSync(Scope.make())
    Effect.runSync(Scope.provide(scope)(signal.subscribe(() => woken.push("woken"))))
    signal.wake()
    Effect.runSync(Scope.close(scope, Exit.void))
    signal.wake()
    expect(woken).toEqual(["woken"])
  })
})
