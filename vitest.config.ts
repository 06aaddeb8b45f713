import { defineConfig } from "vitest/config"
import LongFilesFirst from "./test/support/longFilesFirst.ts"

/**
 * Unit files that start worker threads, open DuckDB or start a process: they run in the isolated
 * unit project (a fresh process each), the rest of test/unit/ shares processes.
 * test/unit/testProjects.test.ts fails when a file of the shared project does one of these.
 */
export const UNIT_FILES_OF_THEIR_OWN = [
  "test/unit/analytics.test.ts", // DuckDB
  "test/unit/analyticsRollup.test.ts", // DuckDB
  "test/unit/clickChannel.test.ts", // the click writer thread, DuckDB
  "test/unit/clickColumns.test.ts", // DuckDB
  "test/unit/dependencyPatches.test.ts", // a node process
  "test/unit/qrRenderPool.test.ts", // QR render threads
  "test/unit/spool.test.ts", // DuckDB
  "test/unit/testProjects.test.ts", // vitest itself
  "test/unit/writerPriority.test.ts" // a thread
]

// Tests that start real processes wait for them: seconds each, minutes for a few.
const timeouts = { testTimeout: 120_000, hookTimeout: 120_000 }

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          exclude: UNIT_FILES_OF_THEIR_OWN,
          // Pure logic: the files share a process and its loaded modules (a fresh process for each
          // costs more than most of them take), so none may leave state behind for the next.
          isolate: false,
          ...timeouts
        }
      },
      { test: { name: "unit-isolated", include: UNIT_FILES_OF_THEIR_OWN, ...timeouts } },
      { test: { name: "integration", include: ["test/integration/**/*.test.ts"], ...timeouts } },
      { test: { name: "e2e", include: ["test/e2e/**/*.test.ts"], ...timeouts } },
      { test: { name: "browser", include: ["test/browser/**/*.test.ts"], ...timeouts } },
      { test: { name: "fuzz", include: ["test/fuzz/**/*.test.ts"], ...timeouts } },
      // Not in `npm test` (docs/testing.md#fault-tests): `npm run test:faults` runs them one at a time.
      { test: { name: "faults", include: ["test/faults/**/*.test.ts"], ...timeouts } }
    ],
    // The processes the tests start run dist/: built again first when a source is newer.
    globalSetup: ["test/support/freshBuild.ts"],
    // Integration tests start real processes on their own ports and databases; the
    // machine has two cores, so two files at a time keeps them from starving each other.
    maxWorkers: 2,
    fileParallelism: true,
    // The files that take minutes start first (test/support/longFilesFirst.ts).
    sequence: { sequencer: LongFilesFirst }
  }
})
