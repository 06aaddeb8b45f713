import { readFileSync } from "node:fs"
import type { Audience } from "../../engine/visitors/audience.ts"

/** One labelled User-Agent of a corpus file: `label<TAB>ua<TAB>source[<TAB>family]`, a header line first. */
export interface CorpusRow {
  readonly line: number
  readonly label: Audience
  readonly ua: string
  readonly source: string
  /** The collected set's family (`tv:tizen`, `probe`...), "" in the shared corpus. */
  readonly family: string
}

const LABELS: ReadonlySet<string> = new Set(["people", "agent", "bot"])

export const loadCorpus = (file: URL): CorpusRow[] => {
  const lines = readFileSync(file, "utf8").split("\n")
  const rows: CorpusRow[] = []
  for (let i = 1; i < lines.length; i++) {
    if (lines[i].length === 0) continue
    const [label, ua, source, family] = lines[i].split("\t")
    if (!LABELS.has(label) || ua === undefined || source === undefined || source.length === 0) {
      throw new Error(`${file.pathname} line ${i + 1} is malformed`)
    }
    rows.push({ line: i + 1, label: label as Audience, ua, source, family: family ?? "" })
  }
  return rows
}

export interface Figures {
  readonly total: number
  readonly right: number
  /** Per label: how many rows carry it and how many of those were classified so. */
  readonly byLabel: Readonly<Record<Audience, { readonly rows: number; readonly right: number }>>
  readonly misses: ReadonlyArray<{ readonly row: CorpusRow; readonly got: Audience }>
}

export const measure = (rows: readonly CorpusRow[], classify: (ua: string) => Audience): Figures => {
  const byLabel = { people: { rows: 0, right: 0 }, agent: { rows: 0, right: 0 }, bot: { rows: 0, right: 0 } }
  const misses: Array<{ row: CorpusRow; got: Audience }> = []
  for (const row of rows) {
    const got = classify(row.ua)
    byLabel[row.label].rows++
    if (got === row.label) byLabel[row.label].right++
    else misses.push({ row, got })
  }
  return { total: rows.length, right: rows.length - misses.length, byLabel, misses }
}

const percent = (right: number, rows: number) => (rows === 0 ? "n/a" : `${((100 * right) / rows).toFixed(2)}%`)

/** The figures as one line per measure and one per miss, for the test log. */
export const describeFigures = (name: string, figures: Figures): string =>
  [
    `${name}: ${figures.right}/${figures.total} right (${percent(figures.right, figures.total)})`,
    ...(["people", "agent", "bot"] as const).map(
      (label) => `  ${label} recall ${figures.byLabel[label].right}/${figures.byLabel[label].rows} (${percent(figures.byLabel[label].right, figures.byLabel[label].rows)})`
    ),
    ...figures.misses.map(({ row, got }) => `  miss, line ${row.line}: ${row.label} counted as ${got}: ${row.ua}`)
  ].join("\n")

export const recall = (figures: Figures, label: Audience): number =>
  figures.byLabel[label].rows === 0 ? 1 : figures.byLabel[label].right / figures.byLabel[label].rows
