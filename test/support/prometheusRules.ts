/**
 * Reads a /metrics body (the Prometheus text format) and checks it against the naming rules of
 * `promtool check metrics` and the Prometheus naming guide, so the tests need no promtool:
 * snake_case metric and label names, HELP and TYPE for every family, counters ending in _total and
 * nothing else doing so, base units (seconds, bytes) named in the name, histograms in seconds or
 * bytes, and each series once.
 */

export interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

export interface Exposition {
  readonly help: ReadonlyMap<string, string>
  readonly types: ReadonlyMap<string, string>
  readonly samples: ReadonlyArray<Sample>
}

const SAMPLE = /^([^\s{]+)(?:\{(.*)\})?\s+(\S+)$/
const LABEL = /([^=,\s]+)="((?:[^"\\]|\\.)*)"/g

export const parseExposition = (text: string): Exposition => {
  const help = new Map<string, string>()
  const types = new Map<string, string>()
  const samples: Array<Sample> = []
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue
    const comment = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line)
    if (comment !== null) {
      ;(comment[1] === "HELP" ? help : types).set(comment[2]!, comment[3]!)
      continue
    }
    if (line.startsWith("#")) continue
    const sample = SAMPLE.exec(line)
    if (sample === null) throw new Error(`not a sample line: ${line}`)
    const labels: Record<string, string> = {}
    for (const [, key, value] of (sample[2] ?? "").matchAll(LABEL)) labels[key!] = value!
    samples.push({ name: sample[1]!, labels, value: sample[3] === "+Inf" ? Infinity : Number(sample[3]) })
  }
  return { help, types, samples }
}

/** One series: its name and its labels in name order. */
export const seriesKey = (sample: Pick<Sample, "name" | "labels">): string =>
  `${sample.name}{${Object.keys(sample.labels).sort().map((key) => `${key}="${sample.labels[key]}"`).join(",")}}`

/** The family a sample belongs to (a histogram's _bucket, _sum and _count are its family's). */
const familyOf = (exposition: Exposition, name: string): string => {
  for (const suffix of ["_bucket", "_sum", "_count"]) {
    const base = name.slice(0, -suffix.length)
    if (name.endsWith(suffix) && ["histogram", "summary"].includes(exposition.types.get(base) ?? "")) return base
  }
  return name
}

const SNAKE = /^[a-z_][a-z0-9_]*$/
const NON_BASE_UNITS = /(^|_)(milliseconds|millis|ms|microseconds|us|nanoseconds|ns|minutes|hours|days|kilobytes|kb|megabytes|mb|gigabytes|gb|percent)(_|$)/

/** What breaks the rules, one line each; empty when nothing does. */
export const namingProblems = (text: string): Array<string> => {
  const exposition = parseExposition(text)
  const problems: Array<string> = []
  const seen = new Set<string>()
  for (const [family, type] of exposition.types) {
    if (!SNAKE.test(family)) problems.push(`${family}: metric name is not snake_case`)
    if (!exposition.help.has(family) || exposition.help.get(family)!.trim() === "") problems.push(`${family}: no HELP`)
    if (type === "counter" && !family.endsWith("_total")) problems.push(`${family}: a counter's name must end in _total`)
    if (type !== "counter" && family.endsWith("_total")) problems.push(`${family}: only counters end in _total`)
    if (type === "histogram" && !/_(seconds|bytes)$/.test(family)) problems.push(`${family}: a histogram's name must end in its unit (_seconds, _bytes)`)
    if (NON_BASE_UNITS.test(family.replace(/_total$/, ""))) problems.push(`${family}: use base units (seconds, bytes) in names`)
  }
  for (const sample of exposition.samples) {
    const family = familyOf(exposition, sample.name)
    if (!exposition.types.has(family)) problems.push(`${sample.name}: no TYPE`)
    for (const label of Object.keys(sample.labels)) if (!SNAKE.test(label)) problems.push(`${sample.name}: label ${label} is not snake_case`)
    const key = seriesKey(sample)
    if (seen.has(key)) problems.push(`${key}: served twice`)
    seen.add(key)
  }
  return [...new Set(problems)]
}

/** Every series of a body, for checking that two endpoints serve none in common. */
export const seriesOf = (text: string): Set<string> => new Set(parseExposition(text).samples.map(seriesKey))

/** The value of the one series of `name` whose labels include `labels`; undefined when there is none. */
export const valueOf = (text: string, name: string, labels: Record<string, string> = {}): number | undefined =>
  parseExposition(text).samples.find((sample) =>
    sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))?.value
