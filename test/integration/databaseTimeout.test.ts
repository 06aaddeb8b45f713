import { Effect, Exit, Schema } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { ServiceUnavailable } from "../../control/kernel/errors.ts"
import { DatabaseUnavailable } from "../../control/kernel/DatabaseUnavailable.ts"
import { query } from "../../control/db/sql.ts"
import { embeddedLayer, postgresLayer } from "../../control/db/layers.ts"
import { createTestDatabase, removeDir, tempDir } from "../support/processes.ts"

/**
 * query() answers 503 when a call outlasts RICOCHET_DB_TIMEOUT_SECONDS, on both databases. With
 * PGlite the one connection must come out of it usable: nothing may drop it.
 */
describe("query() past the database timeout", () => {
  const cleanups: Array<() => Promise<void>> = []
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup()
  })

  const slowThenFast = Effect.gen(function*() {
    const started = Date.now()
    const slow = yield* Effect.exit(query((sql) => sql`SELECT pg_sleep(1.5)`))
    const slowMs = Date.now() - started
    const fast = yield* query((sql) => sql<{ one: number }[]>`SELECT 1 AS one`)
    return { slow, slowMs, fast: fast[0].one }
  })

  const expectUnavailableThenUsable = (outcome: Effect.Success<typeof slowThenFast>, boundMs: number) => {
    expect(Exit.isFailure(outcome.slow)).toBe(true)
    const error = Exit.isFailure(outcome.slow) ? outcome.slow.cause.reasons[0] : undefined
    const failure = error !== undefined && "error" in error ? error.error : undefined
    expect(failure).toBeInstanceOf(DatabaseUnavailable)
    // The API's answer to it: 503, the spec's internal_server_error body, Retry-After.
    expect(Schema.encodeUnknownSync(ServiceUnavailable.response)(failure)).toMatchObject({
      body: { error: { code: "internal_server_error" } },
      headers: { "retry-after": "5" }
    })
    expect(outcome.slowMs).toBeLessThan(boundMs)
    expect(outcome.fast).toBe(1)
  }

  it("embedded: 503 at the deadline, and the only connection still answers afterwards", async () => {
    const dir = await tempDir()
    cleanups.push(() => removeDir(dir))
    const outcome = await Effect.runPromise(slowThenFast.pipe(Effect.provide(embeddedLayer(dir, 0.5))))
    // PGlite runs on this event loop: its statement blocks the deadline's timer until it ends.
    expectUnavailableThenUsable(outcome, 3_000)
  }, 60_000)

  it("PostgreSQL: 503 at the deadline, and the pool still answers afterwards", async () => {
    const db = await createTestDatabase()
    cleanups.push(db.drop)
    const outcome = await Effect.runPromise(slowThenFast.pipe(Effect.provide(postgresLayer(db.url, 0.5))))
    expectUnavailableThenUsable(outcome, 1_400)
  }, 60_000)
})
