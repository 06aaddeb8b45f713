import { Cause, Effect, Logger } from "effect"
import { describe, expect, it } from "vitest"
import { makeJobHealth } from "../../control/jobs/jobHealth.ts"
import { pollLoop, type RoundOutcome } from "../../control/jobs/pollLoop.ts"

/** Runs `effect` with Effect's log lines gathered as `level message [cause]`. */
const withLog = async <A>(effect: Effect.Effect<A>) => {
  const lines: Array<{ level: string; message: string; cause: boolean }> = []
  const logger = Logger.make(({ logLevel, message, cause }) => {
    const parts = Array.isArray(message) ? message : [message]
    lines.push({ level: logLevel, message: parts.filter((p) => typeof p === "string").join(" "), cause: cause.reasons.length > 0 || parts.some(Cause.isCause) })
  })
  const value = await Effect.runPromise(effect.pipe(Effect.provide(Logger.layer([logger]))))
  return { value, lines }
}

describe("makeJobHealth: a run of failures is logged once when it begins and once when it ends", () => {
  it("logs the first failure of a run, none of the next, and the recovery with its length", async () => {
    const health = makeJobHealth("outbox publisher")
    const down = Cause.fail(new Error("connect ECONNREFUSED 127.0.0.1:5432"))
    const { lines } = await withLog(Effect.gen(function*() {
      yield* health.succeeded
      for (let i = 0; i < 50; i++) yield* health.failed(down)
      yield* health.succeeded
      yield* health.succeeded
      yield* health.failed(down)
    }))
    expect(lines.map((l) => [l.level, l.message])).toEqual([
      ["Warn", "outbox publisher failed: connect ECONNREFUSED 127.0.0.1:5432; retrying (logged again once it works)"],
      ["Info", "outbox publisher works again after 0 s (50 failed rounds)"],
      ["Warn", "outbox publisher failed: connect ECONNREFUSED 127.0.0.1:5432; retrying (logged again once it works)"]
    ])
    // A dependency that is away is a reason in one line, not a stack.
    expect(lines[0]!.cause).toBe(false)
  })

  it("logs an unexpected defect at level error with its cause (the stack)", async () => {
    const health = makeJobHealth("import runner 1")
    const { lines } = await withLog(health.failed(Cause.die(new TypeError("Cannot read properties of undefined"))))
    expect(lines).toEqual([{ level: "Error", message: expect.stringContaining("import runner 1 failed: Cannot read properties of undefined"), cause: true }])
  })
})

/**
 * Waits until `done()` holds, looking every 5 ms, for at most about 10 s: far less than the loops'
 * 60 s rests, so a round that came only after a rest never comes in time, and a slow machine only
 * makes the wait longer.
 */
const until = (done: () => boolean) =>
  Effect.gen(function*() {
    for (let looks = 0; !done() && looks < 2_000; looks++) yield* Effect.sleep(5)
  })

describe("pollLoop", () => {
  it("runs again at once after work, rests after an idle round, is woken early, and backs off after failures", async () => {
    const outcomes: Array<RoundOutcome | "fail"> = ["again", "again", "idle", "fail", "fail", "idle"]
    const times: Array<number> = []
    let roundsBeforeWake = 0
    let wokenAt = 0
    const { lines } = await withLog(Effect.scoped(Effect.gen(function*() {
      let rounds = 0
      const round = Effect.suspend(() => {
        times.push(Date.now())
        const outcome = outcomes[rounds++] ?? "idle"
        return outcome === "fail" ? Effect.fail(new Error("database down")) : Effect.succeed(outcome)
      })
      const loop = yield* pollLoop("test job", round, { idleMs: 60_000, maxBackoffMs: 150 })
      // Rounds 1-3 without a rest between them; the third is idle, and only a wake ends its 60 s.
      yield* until(() => times.length === 3)
      yield* Effect.sleep(50)
      roundsBeforeWake = times.length
      wokenAt = Date.now()
      loop.wake()
      yield* until(() => times.length === outcomes.length)
      // The last round is idle: no seventh one.
      yield* Effect.sleep(50)
    })))
    expect(roundsBeforeWake).toBe(3)
    expect(times.length).toBe(outcomes.length)
    expect(times[3]!).toBeGreaterThanOrEqual(wokenAt)
    // Each failure backs off (100 ms doubled, capped to 150) before the next round.
    expect(times[4]! - times[3]!).toBeGreaterThanOrEqual(140)
    expect(times[5]! - times[4]!).toBeGreaterThanOrEqual(140)
    expect(lines.map((l) => l.level)).toEqual(["Warn", "Info"])
  })

  it("keeps a wake that arrives during a round for the rest after it", async () => {
    let rounds = 0
    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      let wakeNow = () => {}
      // A round that takes a moment, woken while it runs: the rest that follows is skipped.
      const round = Effect.andThen(Effect.sleep(20), Effect.sync(() => {
        rounds++
        if (rounds === 1) wakeNow()
        return "idle" as const
      }))
      const loop = yield* pollLoop("latched", round, { idleMs: 60_000 })
      wakeNow = loop.wake
      yield* until(() => rounds === 2)
      // The second round was not woken: it rests.
      yield* Effect.sleep(100)
    })))
    expect(rounds).toBe(2)
  })

  it("rests as long as an idle round asks, instead of idleMs, and a wake still ends it", async () => {
    const times: Array<number> = []
    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const start = Date.now()
      // Round 1 asks for 100 ms (a retry due then); round 2 for a minute, which only a wake ends.
      const asked: Array<RoundOutcome> = [{ restMs: 100 }, { restMs: 60_000 }, { restMs: 60_000 }]
      const round = Effect.sync(() => {
        times.push(Date.now() - start)
        return asked[times.length - 1] ?? "idle"
      })
      const loop = yield* pollLoop("due times", round, { idleMs: 5 })
      const rounds = (n: number) => Effect.repeat(Effect.sleep(10), { until: () => times.length >= n, times: 1_000 })
      yield* rounds(2)
      // Not idleMs later: no third round comes in the next 200 ms without a wake.
      yield* Effect.sleep(200)
      const beforeWake = times.length
      loop.wake()
      yield* rounds(3)
      expect(beforeWake).toBe(2)
    })))
    expect(times).toHaveLength(3)
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(95)
  })
})
