import postgres from "postgres"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ADMIN_DATABASE_URL } from "../support/processes.ts"
import { startTcpProxy, type TcpProxy } from "../support/tcpProxy.ts"

/** The fault tests' proxy does what they rely on: pass, hang, refuse, cut, restore, against PostgreSQL. */
describe("tcpProxy in front of PostgreSQL", () => {
  let proxy: TcpProxy
  const admin = new URL(ADMIN_DATABASE_URL)
  beforeAll(async () => {
    proxy = await startTcpProxy({ host: admin.hostname, port: Number(admin.port || 5432) })
  })
  afterAll(() => proxy.close())

  const client = () => {
    const url = new URL(ADMIN_DATABASE_URL)
    url.port = String(proxy.port)
    url.hostname = "127.0.0.1"
    return postgres(url.toString(), { max: 1, connect_timeout: 2, onnotice: () => {} })
  }

  it("passes queries, hangs them until restored, refuses while down and recovers", async () => {
    const sql = client()
    try {
      expect((await sql`SELECT 1 AS one`)[0].one).toBe(1)

      proxy.hang()
      const held = sql`SELECT 2 AS two`.then((rows) => rows[0].two)
      const outcome = await Promise.race([held, new Promise((r) => setTimeout(() => r("still waiting"), 500))])
      expect(outcome).toBe("still waiting")
      await proxy.restore()
      expect(await held).toBe(2)

      await proxy.refuse()
      await expect(sql`SELECT 3`).rejects.toThrow()
      await proxy.restore()
      // The client reconnects by itself once the port answers again.
      expect((await sql`SELECT 4 AS four`)[0].four).toBe(4)

      const before = proxy.accepted()
      proxy.cut()
      await new Promise((r) => setTimeout(r, 50))
      expect((await sql`SELECT 5 AS five`)[0].five).toBe(5)
      expect(proxy.accepted()).toBeGreaterThan(before)
    } finally {
      await sql.end({ timeout: 1 })
    }
  })
})
