import * as path from "node:path"
import { BaseSequencer, type TestSpecification } from "vitest/node"

/**
 * Test files that run for minutes (real processes, real deliveries, a browser), longest first.
 * With two workers the suite takes at least as long as its longest file, and a long file started
 * last adds its whole length to the end. Vitest starts the files that took longest last time first,
 * but CI starts from `npm ci` without that record, and then orders by file size: webhooks.test.ts
 * is three lines.
 */
const LONG_FILES = [
  "test/browser/dashboard.test.ts",
  "test/integration/webhooks.test.ts",
  "test/integration/webhooksEmbedded.test.ts",
  "test/integration/embedded.test.ts",
  "test/integration/oneTimePassword.test.ts",
  "test/integration/people.test.ts",
  // A minute of threads, and its project comes last in vitest's order.
  "test/unit/clickChannel.test.ts"
]

const rank = (spec: TestSpecification): number => {
  const index = LONG_FILES.indexOf(path.relative(spec.project.config.root, spec.moduleId).split(path.sep).join("/"))
  return index === -1 ? LONG_FILES.length : index
}

/** The files in a random order from `seed` (Fisher-Yates over mulberry32). */
const shuffled = <A>(items: ReadonlyArray<A>, seed: number): Array<A> => {
  let state = seed >>> 0
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = Math.imul(state ^ (state >>> 15), state | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32
  }
  const result = [...items]
  for (let i = result.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[result[i], result[j]] = [result[j], result[i]]
  }
  return result
}

/**
 * The long files first, then the other files with a process each, longest last time first
 * (vitest orders project by project, which would start a long file of the last project last),
 * then the files of a project whose files share a process (test/unit), together so that they
 * reuse it, and short, so they fill the end. A file without a record comes first, as in vitest.
 * `--sequence.shuffle` shuffles the files too, as it does without a sequencer of our own: the way
 * to find a test that passes only after (or before) another file.
 */
export default class LongFilesFirst extends BaseSequencer {
  override async sort(files: Array<TestSpecification>): Promise<Array<TestSpecification>> {
    const { shuffle, seed } = this.ctx.config.sequence
    if (shuffle) return shuffled(files, seed)
    const lastRun = (spec: TestSpecification) =>
      this.ctx.cache.getFileTestResults(`${spec.project.name}:${path.relative(this.ctx.config.root, spec.moduleId)}`)
    const sorted = await super.sort(files)
    return sorted.map((spec, order) => {
      const shares = spec.project.config.isolate === false
      const last = shares ? undefined : lastRun(spec)
      return { spec, order, rank: rank(spec), shares: shares ? 1 : 0, failed: last?.failed ? 0 : 1, took: last?.duration ?? Number.MAX_SAFE_INTEGER }
    })
      .sort((a, b) => a.rank - b.rank || a.shares - b.shares || a.failed - b.failed || b.took - a.took || a.order - b.order)
      .map(({ spec }) => spec)
  }
}
