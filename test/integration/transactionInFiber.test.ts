import { Data, Effect, Exit, Layer } from "effect"
import type { Sql } from "postgres"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { openEmbedded } from "../../control/db/embedded.ts"
import { query, run, savepoint, transaction } from "../../control/db/sql.ts"
import { DatabaseUnavailable } from "../../control/kernel/DatabaseUnavailable.ts"
import { openPostgres } from "../../shared/db/client.ts"
import { Database, type Queryable } from "../../shared/db/Database.ts"
import { makeOutageLog } from "../../shared/db/outageLog.ts"
import { createTestDatabase, freePort, removeDir, tempDir } from "../support/processes.ts"
import { sleep } from "../support/time.ts"

/**
 * control/db/sql.ts runs a transaction's body in the calling fiber, inside postgres.js's begin
 * and savepoint (control/db/callbackScope.ts): a body that succeeds commits, one that fails rolls
 * back and its own failure is what the caller sees, a savepoint's failure undoes only its own
 * writes, and a body the deadline interrupts never commits, on PostgreSQL and on the embedded
 * PGlite alike; a BEGIN that cannot connect fails the call at once.
 */

class Refused extends Data.TaggedError("Refused")<{ readonly reason: string }> {}

const DEADLINE_MS = 400

const failureOf = <A, E>(exit: Exit.Exit<A, E>): unknown => {
  if (Exit.isSuccess(exit)) return undefined
  const reason = exit.cause.reasons[0]
  return reason !== undefined && "error" in reason ? reason.error : reason
}

const databaseOn = (sql: Sql, kind: "postgres" | "embedded") =>
  Layer.succeed(Database)(Database.of({ sql, kind, queryTimeoutMs: DEADLINE_MS, outage: makeOutageLog() }))

const marks = query((sql) => sql<{ mark: string }[]>`SELECT mark FROM marks ORDER BY mark`).pipe(
  Effect.map((rows) => rows.map((row) => row.mark))
)
const mark = (tx: Queryable, value: string) => run(() => tx`INSERT INTO marks VALUES (${value})`)

describe.each(["postgres", "embedded"] as const)("a transaction in the calling fiber (%s)", (kind) => {
  let sql: Sql
  let close: () => Promise<void>
  let layer: Layer.Layer<Database>

  beforeAll(async () => {
    if (kind === "postgres") {
      const db = await createTestDatabase()
      sql = openPostgres(db.url, 4, 5)
      close = async () => {
        await sql.end({ timeout: 1 })
        await db.drop()
      }
    } else {
      const dir = await tempDir()
      const embedded = await openEmbedded(dir, "transactionInFiber.test.ts")
      sql = embedded.sql
      close = async () => {
        await embedded.close()
        await removeDir(dir)
      }
    }
    await sql`CREATE TABLE marks (mark text PRIMARY KEY)`
    layer = databaseOn(sql, kind)
  }, 60_000)

  afterAll(async () => {
    await close?.()
  })

  const runOn = <A, E>(effect: Effect.Effect<A, E, Database>) =>
    Effect.runPromise(Effect.andThen(run(() => sql`TRUNCATE marks`), effect).pipe(Effect.provide(layer)))

  it("commits the body's writes and answers its value", async () => {
    const outcome = await runOn(Effect.gen(function*() {
      const value = yield* transaction((tx) => Effect.as(mark(tx, "a"), "the value"))
      return { value, marks: yield* marks }
    }))
    expect(outcome).toEqual({ value: "the value", marks: ["a"] })
  })

  it("rolls back a body that fails, and the caller sees the body's own failure", async () => {
    const outcome = await runOn(Effect.gen(function*() {
      const exit = yield* Effect.exit(transaction((tx) => Effect.andThen(mark(tx, "a"), Effect.fail(new Refused({ reason: "no" })))))
      return { failure: failureOf(exit), marks: yield* marks }
    }))
    expect(outcome.failure).toEqual(new Refused({ reason: "no" }))
    expect(outcome.marks).toEqual([])
  })

  it("a savepoint that fails undoes only its own writes; the transaction goes on and commits", async () => {
    const outcome = await runOn(Effect.gen(function*() {
      const inner = yield* transaction((tx) =>
        Effect.gen(function*() {
          yield* mark(tx, "a")
          const refused = yield* Effect.exit(savepoint(tx, (sp) => Effect.andThen(mark(sp, "b"), Effect.fail(new Refused({ reason: "b" })))))
          // A statement that fails in PostgreSQL (a duplicate) inside a savepoint leaves the transaction usable.
          const duplicate = yield* Effect.exit(savepoint(tx, (sp) => Effect.andThen(mark(sp, "c"), mark(sp, "a"))))
          const kept = yield* savepoint(tx, (sp) => Effect.as(mark(sp, "d"), "d kept"))
          yield* mark(tx, "e")
          return { refused: failureOf(refused), duplicate: failureOf(duplicate), kept }
        })
      )
      return { ...inner, marks: yield* marks }
    }))
    expect(outcome.refused).toEqual(new Refused({ reason: "b" }))
    expect(outcome.duplicate).toMatchObject({ _tag: "DatabaseError" })
    expect(outcome.kept).toBe("d kept")
    expect(outcome.marks).toEqual(["a", "d", "e"])
  })

  it("a body the deadline interrupts answers DatabaseUnavailable at the deadline and never commits", async () => {
    const bodyMs = DEADLINE_MS + 600
    const outcome = await runOn(Effect.gen(function*() {
      const started = Date.now()
      const exit = yield* Effect.exit(transaction((tx) => Effect.andThen(mark(tx, "late"), Effect.sleep(bodyMs))))
      const answeredMs = Date.now() - started
      // Past the end the body would have had: a body left running would have committed by now.
      yield* Effect.sleep(bodyMs + 400)
      return { failure: failureOf(exit), answeredMs, marks: yield* marks }
    }))
    expect(outcome.failure).toBeInstanceOf(DatabaseUnavailable)
    expect(outcome.answeredMs).toBeLessThan(bodyMs)
    expect(outcome.marks).toEqual([])
    // The connection came back from the rollback: the next transaction commits.
    expect(await runOn(Effect.andThen(transaction((tx) => mark(tx, "next")), marks))).toEqual(["next"])
  })

  it.runIf(kind === "postgres")("a statement the deadline interrupts is not waited for, and its transaction never commits", async () => {
    const outcome = await runOn(Effect.gen(function*() {
      const started = Date.now()
      const exit = yield* Effect.exit(transaction((tx) =>
        Effect.andThen(mark(tx, "slow"), run(() => tx`SELECT pg_sleep(1.5)`))
      ))
      const answeredMs = Date.now() - started
      yield* Effect.sleep(2_000)
      return { failure: failureOf(exit), answeredMs, marks: yield* marks }
    }))
    expect(outcome.failure).toBeInstanceOf(DatabaseUnavailable)
    expect(outcome.answeredMs).toBeLessThan(1_200)
    expect(outcome.marks).toEqual([])
  })
})

describe("a transaction on a database that cannot be reached", () => {
  it("fails with DatabaseUnavailable at once, its body never run, and the outage is logged once", async () => {
    const port = await freePort()
    const sql = openPostgres(`postgres://postgres@127.0.0.1:${port}/nothing`, 1, 2)
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {})
    try {
      let ran = false
      const started = Date.now()
      const attempt = transaction(() => Effect.sync(() => (ran = true)))
      const exits = await Effect.runPromise(
        Effect.all([Effect.exit(attempt), Effect.exit(attempt)]).pipe(Effect.provide(databaseOn(sql, "postgres")))
      )
      expect(exits.map(failureOf)).toEqual([expect.any(DatabaseUnavailable), expect.any(DatabaseUnavailable)])
      expect(ran).toBe(false)
      expect(Date.now() - started).toBeLessThan(DEADLINE_MS * 2)
      expect(warn.mock.calls.map((call) => String(call[0]))).toEqual([expect.stringMatching(/^database unavailable, answering 503: .*ECONNREFUSED/)])
    } finally {
      warn.mockRestore()
      await sql.end({ timeout: 1 })
    }
  })
})

describe("the outage logs of two databases in one process", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  beforeAll(async () => {
    db = await createTestDatabase()
  })
  afterAll(async () => {
    await db?.drop()
  })

  it("keep apart: one database answering does not end the other's outage", async () => {
    const up = openPostgres(db.url, 1, 5)
    const down = openPostgres(`postgres://postgres@127.0.0.1:${await freePort()}/nothing`, 1, 2)
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {})
    const log = vi.spyOn(console, "log").mockImplementation(() => {})
    try {
      const onUp = databaseOn(up, "postgres")
      const onDown = databaseOn(down, "postgres")
      const select = query((sql) => sql`SELECT 1`)
      await Effect.runPromise(Effect.exit(select).pipe(Effect.provide(onDown)))
      await Effect.runPromise(select.pipe(Effect.provide(onUp)))
      await Effect.runPromise(Effect.exit(select).pipe(Effect.provide(onDown)))
      // One line for the outage of `down`, none said it ended: only `up` answered.
      expect(warn).toHaveBeenCalledTimes(1)
      expect(log.mock.calls.filter((call) => String(call[0]).startsWith("database answers again"))).toEqual([])
    } finally {
      warn.mockRestore()
      log.mockRestore()
      await up.end({ timeout: 1 })
      await down.end({ timeout: 1 })
    }
  })
})
