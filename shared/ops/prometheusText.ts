/**
 * The Prometheus text format (0.0.4) for series kept outside Effect's metrics: process and
 * runtime figures read when scraped, and histograms counted in arrays on the engine's redirect
 * path. Pure: families in, text out.
 */

export type Labels = Readonly<Record<string, string>>

export interface Sample {
  readonly labels?: Labels
  readonly value: number
}

/** Bucket counts as recorded (not cumulative), one more than the boundaries: the last is +Inf. */
export interface HistogramSeries {
  readonly labels?: Labels
  readonly boundaries: ReadonlyArray<number>
  readonly counts: ReadonlyArray<number>
  readonly sum: number
}

export type Family =
  | { readonly name: string; readonly help: string; readonly type: "counter" | "gauge"; readonly samples: ReadonlyArray<Sample> }
  | { readonly name: string; readonly help: string; readonly type: "histogram"; readonly series: ReadonlyArray<HistogramSeries> }

const escapeHelp = (text: string) => text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")
const escapeValue = (text: string) => text.replace(/\\/g, "\\\\").replace(/"/g, "\\\"").replace(/\n/g, "\\n")

const labelText = (labels: Labels | undefined, extra?: readonly [string, string]): string => {
  const pairs = Object.entries(labels ?? {})
  if (extra !== undefined) pairs.push([extra[0], extra[1]])
  return pairs.length === 0 ? "" : `{${pairs.map(([key, value]) => `${key}="${escapeValue(value)}"`).join(",")}}`
}

const number = (value: number) => (Number.isNaN(value) ? "NaN" : value === Infinity ? "+Inf" : value === -Infinity ? "-Inf" : String(value))

const histogramLines = (name: string, series: HistogramSeries): Array<string> => {
  const lines: Array<string> = []
  let cumulative = 0
  series.boundaries.forEach((boundary, i) => {
    cumulative += series.counts[i] ?? 0
    lines.push(`${name}_bucket${labelText(series.labels, ["le", number(boundary)])} ${cumulative}`)
  })
  cumulative += series.counts[series.boundaries.length] ?? 0
  lines.push(`${name}_bucket${labelText(series.labels, ["le", "+Inf"])} ${cumulative}`)
  lines.push(`${name}_sum${labelText(series.labels)} ${number(series.sum)}`)
  lines.push(`${name}_count${labelText(series.labels)} ${cumulative}`)
  return lines
}

/** The families as exposition text, each with its HELP and TYPE, ending in a newline (empty for none). */
export const renderFamilies = (families: ReadonlyArray<Family>): string => {
  const lines: Array<string> = []
  for (const family of families) {
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`)
    if (family.type === "histogram") for (const series of family.series) lines.push(...histogramLines(family.name, series))
    else for (const sample of family.samples) lines.push(`${family.name}${labelText(sample.labels)} ${number(sample.value)}`)
  }
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`
}
