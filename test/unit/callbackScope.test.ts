import { Data, Deferred, Effect, Exit, Fiber } from "effect"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { inCallbackScope } from "../../control/db/callbackScope.ts"

/**
 * inCallbackScope against a scope the test drives, as postgres.js's begin would: when it calls
 * the callback, how it ends (COMMIT or ROLLBACK done, or failed), and what the callback's promise
 * came to (resolved: commit; rejected: roll back).
 */

class Refused extends Data.TaggedError("Refused")<{}> {}
class EndFailed extends Data.TaggedError("EndFailed")<{ readonly cause: unknown }> {}

/** A scope of the test: `open` for inCallbackScope, and the handles to drive it. */
const drivenScope = () => {
  let calledBack: ((client: string) => Promise<unknown>) | undefined
  let end!: { resolve: (value: unknown) => void; reject: (error: unknown) => void }
  const ended = new Promise<unknown>((resolve, reject) => (end = { resolve, reject }))
  const verdicts: Array<string> = []
  return {
    open: (callback: (client: string) => Promise<unknown>) => {
      calledBack = callback
      return ended
    },
    /** Calls the callback as postgres.js does once BEGIN is done; records what its promise came to. */
    begin: () => {
      const verdict = calledBack!("client").then(() => "commit", () => "rollback")
      void verdict.then((what) => verdicts.push(what))
      return verdict
    },
    end,
    verdicts
  }
}

const ended = (scope: () => PromiseLike<unknown>) => Effect.tryPromise({ try: scope, catch: (cause) => new EndFailed({ cause }) })

const failureOf = <A, E>(exit: Exit.Exit<A, E>): unknown => {
  if (Exit.isSuccess(exit)) return undefined
  const reason = exit.cause.reasons[0]
  return reason !== undefined && "error" in reason ? reason.error : reason._tag
}

const turn = () => new Promise((resolve) => setTimeout(resolve, 5))

describe("inCallbackScope", () => {
  const unhandled: Array<unknown> = []
  const collect = (reason: unknown) => unhandled.push(reason)
  beforeEach(() => {
    unhandled.length = 0
    process.on("unhandledRejection", collect)
  })
  afterEach(async () => {
    // Unhandled rejections are reported after the microtasks of their turn.
    await turn()
    process.off("unhandledRejection", collect)
    expect(unhandled).toEqual([])
  })

  it("success: the callback resolves, and the call answers once the scope has ended (COMMIT)", async () => {
    const scope = drivenScope()
    const fiber = Effect.runFork(inCallbackScope(scope.open, (client) => Effect.succeed(`${client}'s value`), ended))
    expect(await scope.begin()).toBe("commit")
    await turn()
    expect(fiber.pollUnsafe()).toBeUndefined()
    scope.end.resolve("committed")
    expect(await Effect.runPromise(Fiber.await(fiber))).toEqual(Exit.succeed("client's value"))
  })

  it("success whose COMMIT fails: the call fails as `ended` says", async () => {
    const scope = drivenScope()
    const fiber = Effect.runFork(inCallbackScope(scope.open, () => Effect.succeed(1), ended))
    await scope.begin()
    scope.end.reject(new Error("commit failed"))
    expect(failureOf(await Effect.runPromise(Fiber.await(fiber)))).toEqual(new EndFailed({ cause: new Error("commit failed") }))
  })

  it("failure: the callback rejects, the call waits for the rollback, then fails with the body's own failure", async () => {
    const scope = drivenScope()
    const fiber = Effect.runFork(inCallbackScope(scope.open, () => Effect.fail(new Refused()), ended))
    expect(await scope.begin()).toBe("rollback")
    await turn()
    expect(fiber.pollUnsafe()).toBeUndefined()
    // postgres.js rethrows the callback's rejection once ROLLBACK is done; a failed ROLLBACK alike.
    scope.end.reject(new Error("rollback failed"))
    expect(failureOf(await Effect.runPromise(Fiber.await(fiber)))).toEqual(new Refused())
  })

  it("interrupted in the body: the callback rejects, and the call ends without waiting for the scope", async () => {
    const scope = drivenScope()
    const inBody = Deferred.makeUnsafe<void>()
    const fiber = Effect.runFork(inCallbackScope(scope.open, () => Effect.andThen(Deferred.succeed(inBody, undefined), Effect.never), ended))
    const verdict = scope.begin()
    await Effect.runPromise(Deferred.await(inBody))
    // The scope never ends here (a hung connection): the interruption does not wait for it.
    const exit = await Effect.runPromise(Fiber.interrupt(fiber).pipe(Effect.andThen(Fiber.await(fiber))))
    expect(Exit.hasInterrupts(exit)).toBe(true)
    expect(await verdict).toBe("rollback")
    // Its end, later, is handled.
    scope.end.reject(new Error("connection closed"))
  })

  it("interrupted while the scope opens: the callback, once called, rejects at once; the scope's end is handled", async () => {
    const scope = drivenScope()
    let ran = false
    const fiber = Effect.runFork(inCallbackScope(scope.open, () => Effect.sync(() => (ran = true)), ended))
    await turn()
    const exit = await Effect.runPromise(Fiber.interrupt(fiber).pipe(Effect.andThen(Fiber.await(fiber))))
    expect(Exit.hasInterrupts(exit)).toBe(true)
    expect(await scope.begin()).toBe("rollback")
    expect(ran).toBe(false)
    scope.end.reject(new Error("rolled back"))
  })

  it("a scope that fails before calling back (BEGIN could not connect): the call fails as `ended` says, the body never runs", async () => {
    const scope = drivenScope()
    let ran = false
    const fiber = Effect.runFork(inCallbackScope(scope.open, () => Effect.sync(() => (ran = true)), ended))
    scope.end.reject(new Error("ECONNREFUSED"))
    expect(failureOf(await Effect.runPromise(Fiber.await(fiber)))).toEqual(new EndFailed({ cause: new Error("ECONNREFUSED") }))
    expect(ran).toBe(false)
  })

  it("an `open` that throws: the call fails as `ended` says", async () => {
    const exit = await Effect.runPromise(Effect.exit(inCallbackScope(() => {
      throw new Error("no client")
    }, () => Effect.succeed(1), ended)))
    expect(failureOf(exit)).toEqual(new EndFailed({ cause: new Error("no client") }))
  })
})
