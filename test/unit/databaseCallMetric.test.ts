import { Effect, Fiber, Metric } from "effect"
import { describe, expect, it } from "vitest"
import { databaseInFlight, observeDatabaseCall } from "../../control/ops/metrics.ts"
import { DatabaseUnavailable } from "../../control/kernel/DatabaseUnavailable.ts"

const gauge = Effect.map(Metric.value(databaseInFlight), (state) => state.value)

/** Each test counts in a registry of its own: Effect's default one is the process's, shared with other files. */
const inOwnRegistry = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.provideService(effect, Metric.MetricRegistry, new Map()))

describe("observeDatabaseCall: calls in flight", () => {
  it("counts a call while it runs and not once it ended, however it ended, overlapping calls each once", async () => {
    const seen = await inOwnRegistry(Effect.gen(function*() {
      const during: Array<number> = []
      yield* observeDatabaseCall(Effect.flatMap(gauge, (n) => Effect.sync(() => during.push(n))))
      yield* Effect.exit(observeDatabaseCall(Effect.fail(DatabaseUnavailable.now())))
      yield* Effect.exit(observeDatabaseCall(Effect.die(new Error("a defect"))))
      // Two at once: the inner one sees both.
      yield* observeDatabaseCall(observeDatabaseCall(Effect.flatMap(gauge, (n) => Effect.sync(() => during.push(n)))))
      const fiber = yield* Effect.forkChild(observeDatabaseCall(Effect.never))
      yield* Effect.yieldNow
      const whileHung = yield* gauge
      yield* Fiber.interrupt(fiber)
      return { during, whileHung, after: yield* gauge }
    }))
    expect(seen.during).toEqual([1, 2])
    expect(seen.whileHung).toBe(1)
    expect(seen.after).toBe(0)
  })

  it("keeps two controls of one process apart (each its own registry): one's hung call is not the other's", async () => {
    const registryA = new Map()
    const hung = Effect.runFork(Effect.provideService(observeDatabaseCall(Effect.never), Metric.MetricRegistry, registryA))
    await Effect.runPromise(Effect.yieldNow)
    const inB = await inOwnRegistry(observeDatabaseCall(gauge))
    const inA = await Effect.runPromise(Effect.provideService(gauge, Metric.MetricRegistry, registryA))
    await Effect.runPromise(Fiber.interrupt(hung))
    expect({ inA, inB }).toEqual({ inA: 1, inB: 1 })
  })
})
