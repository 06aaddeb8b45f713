import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { type Activity, QUIET_MS, untilQuiet } from "../../engine/http/stopping.ts"

/**
 * When a stopping engine server closes its connections (engine/http/stopping.ts): once nothing
 * has happened for QUIET_MS and no answer is pending, or at its deadline. On fake timers: each
 * case is a timeline of requests arriving and answers pending, in ms after the stop began.
 */

const DEADLINE_MS = 10_000

interface Timeline {
  /** When a request arrives (or an answer is given): activity. */
  readonly events: ReadonlyArray<number>
  /** Spans during which an answer is pending. */
  readonly pending: ReadonlyArray<readonly [number, number]>
}

/** Runs untilQuiet against a timeline; resolves with its outcome and when it came. */
const run = async ({ events, pending }: Timeline) => {
  const start = Date.now()
  const at = () => Date.now() - start
  const activity: Activity = {
    count: () => events.filter((t) => t <= at()).length,
    busy: () => pending.some(([from, to]) => from <= at() && at() < to)
  }
  let outcome: { quiet: boolean; afterMs: number } | undefined
  void untilQuiet(activity, start + DEADLINE_MS).then((quiet) => (outcome = { quiet, afterMs: at() }))
  await vi.advanceTimersByTimeAsync(DEADLINE_MS + 1_000)
  return outcome
}

describe("untilQuiet", () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  const periodic = (every: number, until: number) => Array.from({ length: Math.floor(until / every) }, (_, i) => (i + 1) * every)

  it.each<readonly [string, Timeline, boolean, number, number]>([
    // [case, timeline, quiet, earliest ms, latest ms]
    ["nothing happens: quiet after one window", { events: [], pending: [] }, true, QUIET_MS, QUIET_MS],
    ["requests until 600 ms: quiet one window after the last", { events: [100, 300, 600], pending: [] }, true, 600 + QUIET_MS, 600 + 2 * QUIET_MS],
    ["an answer pending until 1,500 ms, nothing else: quiet once it is given", { events: [1_500], pending: [[0, 1_500]] }, true, 1_500 + QUIET_MS, 1_500 + 2 * QUIET_MS],
    ["an answer pending until 1,500 ms, then a request pipelined behind it", { events: [1_500, 1_510], pending: [[0, 1_500]] }, true, 1_510 + QUIET_MS, 1_510 + 2 * QUIET_MS],
    ["a client that keeps sending: the deadline", { events: periodic(100, 20_000), pending: [] }, false, DEADLINE_MS, DEADLINE_MS],
    ["an answer pending past the deadline: the deadline", { events: [], pending: [[0, 60_000]] }, false, DEADLINE_MS, DEADLINE_MS]
  ])("%s", async (_case, timeline, quiet, earliest, latest) => {
    const outcome = await run(timeline)
    expect(outcome?.quiet).toBe(quiet)
    expect(outcome!.afterMs).toBeGreaterThanOrEqual(earliest)
    // (Fake timers run each setImmediate a millisecond on.)
    expect(outcome!.afterMs).toBeLessThanOrEqual(latest + 10)
  })
})
