import type { HistogramSeries, Labels } from "./prometheusText.ts"

/** What a histogram counted: per bucket (not cumulative; the last is above every boundary) and the sum. */
export interface HistogramCounts {
  readonly counts: ReadonlyArray<number>
  readonly sum: number
}

/**
 * A histogram with fixed boundaries counted into a typed array: recording is a few comparisons
 * and two additions, no allocation and no call into a metrics library, so it can sit on the
 * redirect path. Each thread keeps its own; the main thread adds them up when scraped.
 */
export class FixedHistogram {
  private readonly bounds: Float64Array
  private readonly buckets: Float64Array
  private total = 0

  constructor(readonly boundaries: ReadonlyArray<number>) {
    this.bounds = Float64Array.from(boundaries)
    this.buckets = new Float64Array(boundaries.length + 1)
  }

  record(value: number): void {
    const bounds = this.bounds
    let i = 0
    // Prometheus buckets hold values less than or equal to their boundary.
    while (i < bounds.length && value > bounds[i]) i++
    this.buckets[i]++
    this.total += value
  }

  snapshot(): HistogramCounts {
    return { counts: Array.from(this.buckets), sum: this.total }
  }
}

/** Several threads' counts of one histogram as one. */
export const addCounts = (all: ReadonlyArray<HistogramCounts>, buckets: number): HistogramCounts => {
  const counts = new Array<number>(buckets).fill(0)
  let sum = 0
  for (const one of all) {
    for (let i = 0; i < buckets; i++) counts[i] += one.counts[i] ?? 0
    sum += one.sum
  }
  return { counts, sum }
}

/** Counts in one unit as a Prometheus series in another (the redirect path counts milliseconds, Prometheus wants seconds). */
export const asSeries = (boundaries: ReadonlyArray<number>, counts: HistogramCounts, scale = 1, labels?: Labels): HistogramSeries => ({
  ...(labels === undefined ? {} : { labels }),
  // toPrecision: 0.05 ms is 0.00005 s, not 0.000050000000000000002.
  boundaries: boundaries.map((boundary) => Number((boundary * scale).toPrecision(12))),
  counts: counts.counts,
  sum: counts.sum * scale
})
