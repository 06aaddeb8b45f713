import { describe, expect, it } from "vitest"
import { type Counters, look, NEW_SOCKET, type Progress } from "../../shared/db/stalledSockets.ts"

const STALL = 1_000

/** Runs the looks in order from a new socket; returns whether each one found the socket hung. */
const verdicts = (looks: ReadonlyArray<readonly [atMs: number, bytesRead: number, bytesWritten: number]>) => {
  let progress: Progress = NEW_SOCKET
  return looks.map(([at, bytesRead, bytesWritten]) => {
    const counters: Counters = { bytesRead, bytesWritten }
    const next = look(progress, counters, at, STALL)
    progress = next.progress
    return next.hung
  })
}

describe("look (TLS connections, by byte counters): a socket sent bytes that reads nothing for the stall time is hung", () => {
  const rows: ReadonlyArray<readonly [what: string, looks: ReadonlyArray<readonly [number, number, number]>, expected: ReadonlyArray<boolean>]> = [
    ["never written: idle, never hung", [[0, 0, 0], [5_000, 0, 0], [60_000, 0, 0]], [false, false, false]],
    ["answered within a look: idle afterwards", [[0, 40, 30], [5_000, 40, 30], [60_000, 40, 30]], [false, false, false]],
    ["startup sent, nothing back: hung after the stall time", [[0, 0, 50], [500, 0, 50], [999, 0, 50], [1_000, 0, 50]], [false, false, false, true]],
    ["a request after a long idle time is timed from the look that saw it", [[0, 40, 30], [60_000, 40, 90], [60_900, 40, 90], [61_000, 40, 90]], [false, false, false, true]],
    ["a reply resets the wait", [[0, 0, 50], [900, 10, 50], [1_800, 10, 50], [2_700, 10, 50]], [false, false, false, false]],
    ["a reply, then a new unanswered request", [[0, 0, 50], [900, 10, 50], [1_000, 10, 80], [1_900, 10, 80], [2_000, 10, 80]], [false, false, false, false, true]],
    ["a long result streaming in is progress", [[0, 0, 50], [800, 100, 50], [1_600, 200, 50], [2_400, 300, 50]], [false, false, false, false]],
    ["more requests while waiting do not restart the wait", [[0, 0, 50], [600, 0, 70], [1_000, 0, 90]], [false, false, true]]
  ]
  it.each(rows)("%s", (_what, looks, expected) => {
    expect(verdicts(looks)).toEqual(expected)
  })
})
