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
  "test/integration/people.test.ts"
]

const rank = (spec: TestSpecification): number => {
  const index = LONG_FILES.indexOf(path.relative(spec.project.config.root, spec.moduleId).split(path.sep).join("/"))
  return index === -1 ? LONG_FILES.length : index
}

/** Vitest's own order, with the long files moved to the front. */
export default class LongFilesFirst extends BaseSequencer {
  override async sort(files: Array<TestSpecification>): Promise<Array<TestSpecification>> {
    const sorted = await super.sort(files)
    return sorted.map((spec, order) => ({ spec, order, rank: rank(spec) }))
      .sort((a, b) => a.rank - b.rank || a.order - b.order)
      .map(({ spec }) => spec)
  }
}
