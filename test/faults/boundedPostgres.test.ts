import type { Sql } from "postgres"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openPostgres } from "../../shared/db/client.ts"
import { ADMIN_DATABASE_URL } from "../support/processes.ts"
import { startTcpProxy, type TcpProxy } from "../support/tcpProxy.ts"

/**
 * Control's pool (openPostgres with a timeout) against a PostgreSQL that hangs or refuses, through
 * the fault proxy. Timeout 1 s here: statements and connects are bounded by 1 s, a socket with an
 * unanswered request is dropped after 2 s.
 */
describe("openPostgres with a timeout: no call waits on a hung or refusing server for long", () => {
  let proxy: TcpProxy
  let sql: Sql
  const codeOf = (promise: Promise<unknown>) => promise.then(() => "answered", (error: { code?: string }) => error.code ?? String(error))
  const timed = async <T>(run: () => Promise<T>) => {
    const start = Date.now()
    const value = await run()
    return { value, ms: Date.now() - start }
  }

  beforeAll(async () => {
    const admin = new URL(ADMIN_DATABASE_URL)
    proxy = await startTcpProxy({ host: admin.hostname, port: Number(admin.port || 5432) })
    admin.hostname = "127.0.0.1"
    admin.port = String(proxy.port)
    sql = openPostgres(admin.toString(), 2, 1)
  })
  afterAll(async () => {
    await sql?.end({ timeout: 1 })
    await proxy?.close()
  })

  it("drops a connection whose server stopped answering while the server still hangs, then reconnects", { timeout: 30_000 }, async () => {
    expect((await sql`SELECT 1 AS one`)[0].one).toBe(1)
    proxy.hang()
    const hung = await timed(() => codeOf(sql`SELECT 2`))
    expect(hung.value).toBe("ETIMEDOUT")
    expect(hung.ms).toBeGreaterThanOrEqual(1_500)
    expect(hung.ms).toBeLessThan(4_000)
    // The pool gave up by itself: the proxy still holds every byte.
    expect(proxy.mode()).toBe("hang")

    // A new connection to the hung server: the startup is bounded by the connect timeout.
    const connecting = await timed(() => codeOf(sql`SELECT 3`))
    expect(connecting.value).toMatch(/^(CONNECT_TIMEOUT|ETIMEDOUT)$/)
    expect(connecting.ms).toBeLessThan(4_000)

    await proxy.restore()
    const after = await timed(() => sql`SELECT 4 AS four`)
    expect(after.value[0].four).toBe(4)
    expect(after.ms).toBeLessThan(2_000)
  })

  it("lets the server cancel a statement that runs past the timeout, and keeps the connection", async () => {
    const before = proxy.accepted()
    const slow = await timed(() => codeOf(sql`SELECT pg_sleep(5)`))
    expect(slow.value).toBe("57014")
    expect(slow.ms).toBeLessThan(2_000)
    expect((await sql`SELECT 5 AS five`)[0].five).toBe(5)
    expect(proxy.accepted()).toBe(before)
  })

  it("fails at once while refused and reconnects within about a second of the restore, however many attempts failed", async () => {
    await proxy.refuse()
    for (let i = 0; i < 8; i++) {
      const refused = await timed(() => codeOf(sql`SELECT 6`))
      // The first call may meet the connection the refusal just reset.
      expect(refused.value).toMatch(i === 0 ? /^(ECONNREFUSED|ECONNRESET|CONNECTION_CLOSED)$/ : /^ECONNREFUSED$/)
      expect(refused.ms).toBeLessThan(2_000)
    }
    await proxy.restore()
    const after = await timed(() => sql`SELECT 7 AS seven`)
    expect(after.value[0].seven).toBe(7)
    expect(after.ms).toBeLessThan(2_000)
  })
})
