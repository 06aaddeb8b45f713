import { FixedHistogram, type HistogramCounts } from "../../shared/ops/fixedHistogram.ts"

/**
 * Milliseconds from the engine's handler receiving a request to its answer being written: a
 * cached redirect takes tens of microseconds, a miss the database's time, a request held by a
 * slow database up to its deadline.
 */
export const ANSWER_LATENCY_MS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000]

/**
 * Answers by status and their latency, counted on the redirect path: one array slot per status
 * code and one per latency bucket, since a Map or a metric update per request would cost more
 * than the redirect itself.
 */
export class AnswerCounts {
  private readonly byStatus = new Float64Array(600)
  private readonly latency = new FixedHistogram(ANSWER_LATENCY_MS)

  record(status: number, elapsedMs: number): void {
    if (status >= 100 && status < 600) this.byStatus[status]++
    this.latency.record(elapsedMs)
  }

  /** Statuses answered at least once, with their totals. */
  snapshot(): Array<readonly [status: number, count: number]> {
    const seen: Array<readonly [number, number]> = []
    for (let status = 100; status < 600; status++) if (this.byStatus[status] > 0) seen.push([status, this.byStatus[status]])
    return seen
  }

  latencySnapshot(): HistogramCounts {
    return this.latency.snapshot()
  }
}

/** What a status means for a short-link visit, the `outcome` label operators graph. */
export const outcomeOf = (status: number): string =>
  status >= 300 && status < 400 && status !== 304 ? "redirect"
    : status === 200 ? "page"
    : status === 404 || status === 410 ? "not_found"
    : status === 401 || status === 403 ? "refused"
    : status >= 500 ? "failure"
    : "other"
