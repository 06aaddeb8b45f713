import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  apiClient,
  type ControlHandle,
  createTestDatabase,
  createWorkspace,
  removeDir,
  roomInThisMinute,
  startControl,
  tempDir
} from "../support/processes.ts"

/**
 * The 300/minute allowance belongs to the workspace, whichever control process answers: two
 * processes on one PostgreSQL must share it. The window is a wall-clock minute, so the test
 * waits for a fresh one when too little of the current minute is left.
 */
describe("rate limit shared by two control processes on one database", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let dirs: Array<string> = []
  let a: ControlHandle
  let b: ControlHandle

  beforeAll(async () => {
    db = await createTestDatabase()
    dirs = [await tempDir(), await tempDir()]
    ;[a, b] = await Promise.all([
      startControl({ DATABASE_URL: db.url, RICOCHET_DATA_DIR: dirs[0] }, true),
      startControl({ DATABASE_URL: db.url, RICOCHET_DATA_DIR: dirs[1] }, true)
    ])
  })

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()])
    await db?.drop()
    await Promise.all(dirs.map(removeDir))
  })

  it("exactly one of the two started processes created the first workspace", () => {
    expect([a.firstKey, b.firstKey].filter((k) => k !== undefined)).toHaveLength(1)
  })

  it("counts requests to both processes against one allowance of 300 a minute", async () => {
    const { apiKey } = await createWorkspace(a.env)
    await roomInThisMinute(25)
    const clients = [apiClient(a.baseUrl, apiKey), apiClient(b.baseUrl, apiKey)]
    const statuses: Array<number> = []
    const remaining: Array<number> = []
    // 300 allowed, alternating processes, in parallel batches.
    for (let batch = 0; batch < 15; batch++) {
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => clients[i % 2].get("/v1/tags")))
      for (const r of results) {
        statuses.push(r.status)
        remaining.push(Number(r.headers.get("ratelimit-remaining")))
        expect(r.headers.get("ratelimit-limit")).toBe("300")
      }
    }
    expect(statuses.every((s) => s === 200)).toBe(true)
    // Every count from 299 down to 0 was handed out exactly once across both processes.
    expect([...remaining].sort((x, y) => x - y)).toEqual(Array.from({ length: 300 }, (_, i) => i))

    for (const client of clients) {
      const over = await client.get("/v1/tags")
      expect(over.status).toBe(429)
      expect(over.body.error.code).toBe("rate_limit_exceeded")
      const retryAfter = Number(over.headers.get("retry-after"))
      expect(retryAfter).toBeGreaterThanOrEqual(1)
      expect(retryAfter).toBeLessThanOrEqual(60)
      expect(over.headers.get("ratelimit-remaining")).toBe("0")
      expect(Number(over.headers.get("ratelimit-reset"))).toBe(retryAfter)
    }
  })

  it("keeps workspaces apart: another workspace still has its full allowance", async () => {
    const { apiKey } = await createWorkspace(b.env, "business", "Other")
    const res = await apiClient(b.baseUrl, apiKey).get("/v1/folders")
    expect(res.status).toBe(200)
    expect(Number(res.headers.get("ratelimit-remaining"))).toBeGreaterThanOrEqual(298)
  })

  it("limits requests without a valid key per client address, with its headers", async () => {
    const anonymous = apiClient(a.baseUrl, "rico_notavalidkeynotavalidkey0000")
    let last = await anonymous.get("/v1/links")
    expect(last.status).toBe(401)
    expect(last.headers.get("ratelimit-limit")).toBe("30")
    for (let i = 0; i < 40 && last.status !== 429; i++) last = await anonymous.get("/v1/links")
    expect(last.status).toBe(429)
    expect(last.headers.get("retry-after")).not.toBeNull()
    // The same address is limited on the other process too: the counter is in the database.
    const viaB = await apiClient(b.baseUrl, undefined).get("/v1/links")
    expect(viaB.status).toBe(429)
  })
})
