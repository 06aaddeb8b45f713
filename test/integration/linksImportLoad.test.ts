import { afterAll, beforeAll, describe, it } from "vitest"
import { BACKENDS, type Backend, startBackend } from "../support/backends.ts"
import { importUnderLoad } from "../support/importLoad.ts"

/**
 * The light variant of test/faults/importLoad.test.ts: a 10,000-row import (about 6 MB) for 10 s
 * while another workspace lists its links and visits never-visited ones on the engine (about 40 s
 * a backend).
 */
describe.each(BACKENDS)("an import beside another workspace's traffic (%s)", (kind) => {
  let backend: Backend

  beforeAll(async () => {
    backend = await startBackend(kind)
  }, 180_000)
  afterAll(async () => {
    await backend?.stop()
  })

  it("answers the upload at once and keeps another workspace's API and short links fast", { timeout: 120_000 }, async () => {
    await importUnderLoad(backend, 10_000, 10_000)
  })
})
