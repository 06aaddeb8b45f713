/**
 * Answers by status, counted on the redirect path: one array slot per status code, since a Map
 * or a metric update per request would cost more than the redirect itself.
 */
export class AnswerCounts {
  private readonly byStatus = new Float64Array(600)

  record(status: number): void {
    if (status >= 100 && status < 600) this.byStatus[status]++
  }

  /** Statuses answered at least once, with their totals. */
  snapshot(): Array<readonly [status: number, count: number]> {
    const seen: Array<readonly [number, number]> = []
    for (let status = 100; status < 600; status++) if (this.byStatus[status] > 0) seen.push([status, this.byStatus[status]])
    return seen
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
