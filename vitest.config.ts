import { defineConfig } from "vitest/config"
import LongFilesFirst from "./test/support/longFilesFirst.ts"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The processes the tests start run dist/: built again first when a source is newer.
    globalSetup: ["test/support/freshBuild.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Integration tests start real processes on their own ports and databases; the
    // machine has two cores, so two files at a time keeps them from starving each other.
    maxWorkers: 2,
    fileParallelism: true,
    // The files that take minutes start first (test/support/longFilesFirst.ts).
    sequence: { sequencer: LongFilesFirst }
  }
})
