import { randomBytes } from "node:crypto"
import { readdir } from "node:fs/promises"
import * as path from "node:path"
import { connect } from "nats"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  apiClient,
  type ControlHandle,
  createTestDatabase,
  createWorkspace,
  eventually,
  removeDir,
  startControl,
  tempDir,
  visit
} from "../support/processes.ts"

/**
 * `npm start` (control and an engine in one process) with RICOCHET_CLICKS_TRANSPORT=bucket on the
 * local NATS: the engine's files go out through the bucket from its outbox, and control counts
 * them from its mirror, never from the engine's directory.
 */
const NATS_URL = process.env.RICOCHET_TEST_NATS ?? "nats://127.0.0.1:4222"

describe("the click bucket with control and engine in one process", () => {
  const bucket = `clicks-one-${randomBytes(4).toString("hex")}`
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let dir: string
  let control: ControlHandle

  beforeAll(async () => {
    db = await createTestDatabase()
    dir = await tempDir()
    control = await startControl({
      DATABASE_URL: db.url,
      NATS_URL,
      RICOCHET_DATA_DIR: dir,
      RICOCHET_LINK_SCHEME: "http",
      RICOCHET_ROLL_SECONDS: "1",
      RICOCHET_CLICKS_TRANSPORT: "bucket",
      RICOCHET_CLICKS_BUCKET: bucket
    })
  }, 180_000)

  afterAll(async () => {
    await control?.stop()
    const nc = await connect({ servers: NATS_URL }).catch(() => undefined)
    if (nc !== undefined) {
      await (await nc.jetstreamManager()).streams.delete(`OBJ_${bucket}`).catch(() => {})
      await nc.close()
    }
    await db?.drop()
    if (dir) await removeDir(dir)
  })

  it("counts every click, sent through the bucket and mirrored", async () => {
    const workspace = await createWorkspace(control.env, "pro", "One process")
    const api = apiClient(control.baseUrl, workspace.apiKey)
    const created = await api.post("/v1/links", { url: "https://example.com/one", slug: "one" })
    expect(created.status).toBe(201)
    const engine = `http://127.0.0.1:${control.env.RICOCHET_ENGINE_PORT}`
    for (let i = 0; i < 12; i++) expect((await visit(engine, workspace.domain, "/one")).status).toBe(302)
    await eventually(async () => (await api.get(`/v1/analytics?groupBy=count&interval=24h&linkId=${created.body.id}`)).body.data?.clicks === 12, 20_000, 1_500)
    // In the bucket, and mirrored into control's clicks directory; the engine's outbox is empty.
    const nc = await connect({ servers: NATS_URL })
    try {
      const objects = await (await nc.jetstream().views.os(bucket)).list()
      expect(objects.length).toBeGreaterThan(0)
      const mirrored = (await readdir(path.join(dir, "clicks"), { recursive: true })).filter((f) => f.endsWith(".parquet"))
      expect(mirrored.sort()).toEqual(objects.map((o) => o.name.split("/").join(path.sep)).sort())
    } finally {
      await nc.close()
    }
    const outbox = await readdir(path.join(dir, "spool"), { recursive: true })
    expect(outbox.filter((f) => f.endsWith(".parquet"))).toEqual([])
  }, 60_000)
})
