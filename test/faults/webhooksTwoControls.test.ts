import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { writeClicksParquet } from "../../shared/clicks/clickCsv.ts"
import { openDuckDb, partitionOf } from "../../shared/clicks/parquet.ts"
import { clickRecord } from "../support/clickRecord.ts"
import {
  apiClient,
  type ControlHandle,
  createTestDatabase,
  createWorkspace,
  eventually,
  removeDir,
  startControl,
  tempDir
} from "../support/processes.ts"
import { startReceiver } from "../support/webhookReceiver.ts"

/**
 * Two control processes on one PostgreSQL and one clicks directory, both delivering webhooks:
 * every link event and every click reaches the receiver once (claims with SKIP LOCKED and a
 * lease; each click file claimed once), and each link's events in order.
 */
const LINKS = 30
const FILES = 6
const CLICKS_PER_FILE = 15

describe("webhooks with two control processes on one database", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let dirs: Array<string> = []
  let controls: Array<ControlHandle> = []
  let receiver: Awaited<ReturnType<typeof startReceiver>>

  beforeAll(async () => {
    receiver = await startReceiver()
    db = await createTestDatabase()
    dirs = [await tempDir(), await tempDir(), await tempDir()]
    const common = {
      DATABASE_URL: db.url,
      RICOCHET_CLICKS_DIR: path.join(dirs[2], "clicks"),
      RICOCHET_WEBHOOKS_ALLOW_LOOPBACK: "true",
      RICOCHET_WEBHOOK_RETRY_BASE_SECONDS: "0.2"
    }
    await Promise.all([0, 1].map(async (i) => {
      controls[i] = await startControl({ ...common, RICOCHET_DATA_DIR: dirs[i] }, true)
    }))
  }, 120_000)

  afterAll(async () => {
    await Promise.all(controls.map((c) => c?.stop()))
    await receiver?.close()
    await db?.drop()
    await Promise.all(dirs.map(removeDir))
  })

  it("sends every event once, each link's in order, whichever process sends it", async () => {
    const workspace = await createWorkspace(controls[0].env, "pro", "Two senders")
    const clients = controls.map((c) => apiClient(c.baseUrl, workspace.apiKey))
    const hook = await clients[0].post("/v1/webhooks", { url: receiver.url(), events: ["link.created", "link.updated", "link.clicked"] })
    expect(hook.status).toBe(201)
    const links: Array<{ id: string; slug: string; domain: string }> = []
    for (let i = 0; i < LINKS; i++) {
      const created = await clients[i % 2].post("/v1/links", { url: `https://example.com/${i}`, title: "a" })
      expect(created.status).toBe(201)
      links.push(created.body)
    }
    await Promise.all(links.map((link, i) => clients[(i + 1) % 2].patch(`/v1/links/${link.id}`, { title: "b" })))

    const duck = await openDuckDb(1)
    try {
      for (let f = 0; f < FILES; f++) {
        const now = Date.now()
        const clicks = Array.from({ length: CLICKS_PER_FILE }, (_, i) => {
          const link = links[(f * CLICKS_PER_FILE + i) % LINKS]
          return clickRecord({ timestamp: now + i, workspaceId: workspace.workspace.id, linkId: link.id, domain: link.domain, slug: link.slug })
        })
        await writeClicksParquet(duck, clicks, path.join(dirs[2], "clicks", partitionOf(now).dir, `engine${f}-1.parquet`))
      }
    } finally {
      duck.closeSync()
    }

    const expected = LINKS * 2 + FILES * CLICKS_PER_FILE
    const clicksReceived = () =>
      receiver.received.map((r) => JSON.parse(r.body)).filter((b) => b.type === "link.clicked").reduce((n, b) => n + b.data.clicks.length, 0)
    await eventually(async () => receiver.received.filter((r) => !r.body.includes("link.clicked")).length >= LINKS * 2 && clicksReceived() >= FILES * CLICKS_PER_FILE, 30_000, 100)
    // Anything sent twice would arrive within a retry or two more.
    await new Promise((r) => setTimeout(r, 2_000))
    const ids = receiver.received.map((r) => r.headers["webhook-id"])
    expect(new Set(ids).size).toBe(ids.length)
    expect(receiver.received.filter((r) => !r.body.includes("link.clicked")).length + clicksReceived()).toBe(expected)
    for (const link of links) {
      const types = receiver.received.map((r) => JSON.parse(r.body)).filter((b) => b.data.id === link.id).map((b) => b.type)
      expect(types, link.id).toEqual(["link.created", "link.updated"])
    }
  }, 90_000)
})
