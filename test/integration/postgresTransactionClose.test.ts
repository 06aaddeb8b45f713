import type { Sql, TransactionSql } from "postgres"
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { openPostgres } from "../../shared/db/client.ts"
import { isDatabaseUnavailable } from "../../shared/db/unavailable.ts"
import { createTestDatabase } from "../support/processes.ts"
import { startTcpProxy, type TcpProxy } from "../support/tcpProxy.ts"
import { sleep } from "../support/time.ts"

/**
 * A transaction whose connection closes under it (PostgreSQL going away, a network cut), on
 * control's bounded pool through a TCP proxy the test cuts. postgres.js 3.4.9 as published then
 * writes the transaction's next statement, or its own ROLLBACK, to the closed connection from a
 * setImmediate that throws a TypeError nobody can catch (the process ends), or runs it on the
 * connection the pool has opened again meanwhile, outside any transaction; patches/apply.mjs
 * fixes both. Here the transaction fails with a connection error, nothing of it runs after the
 * close, and the pool serves the next query.
 */
describe("a transaction whose connection closes", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let proxy: TcpProxy
  let direct: Sql
  let sql: Sql

  beforeAll(async () => {
    db = await createTestDatabase()
    const target = new URL(db.url)
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) })
    direct = openPostgres(db.url, 1)
    await direct`CREATE TABLE marks (mark text NOT NULL)`
  })

  afterAll(async () => {
    await direct?.end({ timeout: 1 })
    await proxy?.close()
    await db?.drop()
  })

  beforeEach(async () => {
    const proxied = new URL(db.url)
    proxied.hostname = "127.0.0.1"
    proxied.port = String(proxy.port)
    // One connection, bounded as control's pool is: the transaction holds the only connection,
    // and the pool's next query opens that same connection again.
    sql = openPostgres(proxied.toString(), 1, 2)
    await direct`TRUNCATE marks`
  })

  afterEach(async () => {
    await sql.end({ timeout: 1 })
  })

  /**
   * Runs `body` in a transaction whose connection it cuts with `cut()`; resolves with how the
   * transaction ended, once the body has ended too (postgres.js ends the transaction at the close,
   * while its body may go on).
   */
  const transactionCut = async (body: (tx: TransactionSql, cut: () => Promise<void>) => Promise<unknown>) => {
    let closed!: () => void
    const gone = new Promise<void>((resolve) => (closed = resolve))
    const cut = async () => {
      proxy.cut()
      // The transaction learns of the close with its connection (postgres.js rejects it then).
      await gone
    }
    let bodyDone!: Promise<unknown>
    const began = sql.begin((tx) => (bodyDone = body(tx, cut)))
    began.then(() => closed(), () => closed())
    const ended = await began.then(() => "committed", (error: unknown) => error)
    await bodyDone.catch(() => {})
    return ended
  }

  it("a statement issued after the close fails, and is not run on the connection opened again", async () => {
    let late: unknown
    const ended = await transactionCut(async (tx, cut) => {
      await tx`INSERT INTO marks VALUES ('before the cut')`
      await cut()
      // The pool opens its one connection again for other work before the transaction goes on.
      expect(await sql`SELECT 1 AS one`).toEqual([{ one: 1 }])
      late = await tx`INSERT INTO marks VALUES ('after the cut')`.catch((error: unknown) => error)
      throw late
    })
    expect(isDatabaseUnavailable(ended), String(ended)).toBe(true)
    expect(isDatabaseUnavailable(late), String(late)).toBe(true)
    await sleep(100)
    // Neither the rolled-back insert nor the one issued after the close is in the table.
    expect(await direct`SELECT mark FROM marks`).toEqual([])
    expect(await sql`SELECT 2 AS two`).toEqual([{ two: 2 }])
  })

  it("a statement in flight at the close fails the transaction; its rollback is not written anywhere", async () => {
    const ended = await transactionCut(async (tx, cut) => {
      await tx`INSERT INTO marks VALUES ('before the cut')`
      const sleeping = tx`SELECT pg_sleep(5)`.then(() => "slept", (error: unknown) => error)
      await sleep(200)
      await cut()
      throw await sleeping
    })
    expect(isDatabaseUnavailable(ended), String(ended)).toBe(true)
    await sleep(100)
    expect(await direct`SELECT mark FROM marks`).toEqual([])
    expect(await sql`SELECT 3 AS three`).toEqual([{ three: 3 }])
  })

  it("an idle transaction whose connection closed fails when its callback returns (no COMMIT is written)", async () => {
    const ended = await transactionCut(async (tx, cut) => {
      await tx`INSERT INTO marks VALUES ('before the cut')`
      await cut()
      return "done"
    })
    expect(isDatabaseUnavailable(ended), String(ended)).toBe(true)
    await sleep(100)
    expect(await direct`SELECT mark FROM marks`).toEqual([])
    expect(await sql`SELECT 5 AS five`).toEqual([{ five: 5 }])
  })
})
