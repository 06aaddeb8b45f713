import { randomBytes } from "node:crypto"
import { readdir, readFile } from "node:fs/promises"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { writeClicksParquet } from "../../shared/clicks/clickCsv.ts"
import { openDuckDb } from "../../shared/clicks/parquet.ts"
import { clickRecord } from "../support/clickRecord.ts"
import { startNatsCluster } from "../support/natsCluster.ts"
import { namingProblems, valueOf } from "../support/prometheusRules.ts"
import { startReceiver } from "../support/webhookReceiver.ts"
import {
  apiClient,
  type ControlHandle,
  createTestDatabase,
  createWorkspace,
  eventually,
  removeDir,
  startControl,
  startEngineProcess,
  tempDir,
  visit
} from "../support/processes.ts"

type Engine = Awaited<ReturnType<typeof startEngineProcess>>

/**
 * Scale-out with no shared path (#25): two controls and three engines, each with a directory of
 * its own, on PostgreSQL and a three-node NATS cluster with JetStream; the click files travel
 * through a replicated object store (RICOCHET_CLICKS_TRANSPORT=bucket). After visits through
 * every engine both controls count every click once; a control started afterwards reaches the
 * same figures from the bucket alone; an engine killed with SIGKILL loses no acknowledged click;
 * with the whole cluster down the files wait and arrive once it is back. Compaction runs every
 * second throughout; a past day of files goes through it (one control merges it, through the
 * bucket) with every click counted once on both.
 */
describe("clicks through a JetStream object store, nothing shared on disk", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let nats: Awaited<ReturnType<typeof startNatsCluster>>
  let root: string
  const controls: Array<ControlHandle> = []
  const engines: Array<Engine> = []
  const bucket = `clicks-e2e-${randomBytes(4).toString("hex")}`
  let common: Record<string, string>
  let receiver: Awaited<ReturnType<typeof startReceiver>>

  const controlEnv = (name: string, i: number) => ({
    ...common,
    NATS_URL: nats.urls[i % nats.urls.length]!,
    RICOCHET_DATA_DIR: path.join(root, name),
    RICOCHET_CLICKS_DIR: path.join(root, name, "clicks")
  })
  const engineEnv = (id: string, i: number) => ({
    ...common,
    NATS_URL: nats.urls[i % nats.urls.length]!,
    RICOCHET_DATA_DIR: path.join(root, id),
    RICOCHET_ENGINE_ID: id,
    RICOCHET_ENGINE_WORKERS: "1"
  })

  beforeAll(async () => {
    db = await createTestDatabase()
    receiver = await startReceiver()
    root = await tempDir()
    nats = await startNatsCluster(path.join(root, "nats"))
    common = {
      DATABASE_URL: db.url,
      RICOCHET_SHORT_DOMAIN: "bucket.test",
      RICOCHET_LINK_SCHEME: "https",
      RICOCHET_ROLL_SECONDS: "1",
      RICOCHET_CLICKS_TRANSPORT: "bucket",
      RICOCHET_CLICKS_BUCKET: bucket,
      RICOCHET_CLICKS_REPLICAS: "3",
      RICOCHET_COMPACT_SECONDS: "1",
      RICOCHET_COMPACT_SETTLE_SECONDS: "0",
      RICOCHET_WEBHOOKS_ALLOW_LOOPBACK: "true"
    }
    controls.push(await startControl(controlEnv("control-1", 0), true))
    controls.push(await startControl(controlEnv("control-2", 1), true))
    for (const [i, id] of ["edge-1", "edge-2", "edge-3"].entries()) engines.push(await startEngineProcess(engineEnv(id, i)))
  }, 300_000)

  afterAll(async () => {
    for (const engine of engines) await engine.stop()
    for (const control of controls) await control.stop()
    await nats?.stopAll()
    await receiver?.close()
    await db?.drop()
    if (root) await removeDir(root)
  }, 120_000)

  /** A workspace of its own (its own analytics allowance) with one link every engine answers. */
  const linkOnEveryEngine = async (slug: string) => {
    const workspace = await createWorkspace(controls[0]!.env, "pro", `Bucket ${slug}`)
    const api = apiClient(controls[0]!.baseUrl, workspace.apiKey)
    const created = await api.post("/v1/links", { url: `https://example.com/${slug}`, slug })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    // Polled as curl, a bot: never counted.
    const asBot = { headers: { "user-agent": "curl/8.5.0" } }
    await eventually(async () =>
      (await Promise.all(engines.map((e) => visit(e.baseUrl, workspace.domain, `/${slug}`, asBot)))).every((a) => a.status === 302), 20_000, 100)
    return { key: workspace.apiKey, host: workspace.domain, linkId: created.body.id as string, workspaceId: workspace.workspace.id }
  }

  const clicksOn = async (control: ControlHandle, link: { key: string; linkId: string }) =>
    (await apiClient(control.baseUrl, link.key).get(`/v1/analytics?groupBy=count&interval=24h&linkId=${link.linkId}`)).body.data?.clicks

  /** Polled once a second or two: 20 analytics questions a minute per workspace across the controls. */
  const everyControlCounts = async (link: { key: string; linkId: string }, expected: number, timeoutMs: number, among = controls) => {
    for (const control of among) await eventually(async () => (await clicksOn(control, link)) === expected, timeoutMs, 1_500)
  }

  const engineStatus = async (engine: Engine) =>
    (await (await fetch(`${engine.baseUrl}/.well-known/ricochet/status`)).json()) as {
      sink: { acknowledged: number }
      clicksOutbox: { files: number; bytes: number; uploaded: number }
    }

  const visitAll = async (link: { host: string; linkId: string }, slug: string, perEngine: number, through = engines) => {
    let answered = 0
    for (const engine of through) {
      for (let i = 0; i < perEngine; i++) {
        if ((await visit(engine.baseUrl, link.host, `/${slug}`)).status === 302) answered++
      }
    }
    return answered
  }

  it("counts every click through every engine once on both controls, within seconds", async () => {
    const link = await linkOnEveryEngine("everywhere")
    const answered = await visitAll(link, "everywhere", 20)
    expect(answered).toBe(60)
    const lastVisit = Date.now()
    await everyControlCounts(link, answered, 30_000)
    const seconds = (Date.now() - lastVisit) / 1000
    console.log(`click bucket: both controls counted ${answered} clicks ${seconds.toFixed(1)} s after the last visit`)
    expect(seconds).toBeLessThan(15)
    // Nothing is shared: each control has the files in its own directory, the engines keep none.
    for (const name of ["control-1", "control-2"]) {
      expect((await readdir(path.join(root, name, "clicks"), { recursive: true })).some((f) => f.endsWith(".parquet"))).toBe(true)
    }
    for (const engine of engines) expect((await engineStatus(engine)).clicksOutbox.files).toBe(0)
    // Each control's /metrics says its mirror follows the bucket, and what it brought in (reported once a second).
    for (const control of controls) {
      const metrics = async () => (await fetch(`http://127.0.0.1:${control.env.RICOCHET_CONTROL_ADMIN_PORT}/metrics`)).text()
      await eventually(async () => (valueOf(await metrics(), "ricochet_control_click_mirror_files_total", { change: "downloaded" }) ?? 0) >= engines.length, 5_000, 200)
      const text = await metrics()
      expect(valueOf(text, "ricochet_control_click_mirror_following")).toBe(1)
      expect(namingProblems(text)).toEqual([])
    }
  }, 120_000)

  it("sends link.clicked for every click once, from the mirrored files, whichever control sends it", async () => {
    const link = await linkOnEveryEngine("hooked")
    const api = apiClient(controls[1]!.baseUrl, link.key)
    const hook = await api.post("/v1/webhooks", { url: receiver.url("/hooked"), events: ["link.clicked"], linkId: link.linkId })
    expect(hook.status, JSON.stringify(hook.body)).toBe(201)
    const answered = await visitAll(link, "hooked", 5)
    const delivered = () =>
      receiver.received.filter((r) => r.path === "/hooked").flatMap((r) => (JSON.parse(r.body) as { data: { clicks: Array<unknown> } }).data.clicks).length
    await eventually(async () => delivered() >= answered, 30_000, 100)
    // Files each control mirrors are claimed once between them: no click is sent twice.
    await new Promise((resolve) => setTimeout(resolve, 3_000))
    expect(delivered()).toBe(answered)
  }, 120_000)

  it("counts every click once with a NATS node killed and restarted during the visits", async () => {
    const link = await linkOnEveryEngine("node-down")
    let answered = await visitAll(link, "node-down", 10)
    // The node the first control and engine were told of; the R3 bucket keeps a quorum on the other two.
    await nats.stop(0, "SIGKILL")
    answered += await visitAll(link, "node-down", 10)
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    answered += await visitAll(link, "node-down", 10)
    nats.start(0)
    answered += await visitAll(link, "node-down", 10)
    expect(answered).toBe(120)
    await nats.ready()
    await everyControlCounts(link, answered, 60_000)
  }, 180_000)

  it("compacts a past day once, through the bucket, with every click counted once on both controls", async () => {
    const link = await linkOnEveryEngine("history")
    const day = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10)
    // Files an engine rolled that day (left in its outbox, as by an engine that was cut off from NATS then).
    const outbox = path.join(root, "edge-2", "spool", "edge-2", "outbox")
    const duck = await openDuckDb(1)
    try {
      let n = 0
      for (const hour of ["03", "17"]) {
        for (let f = 0; f < 2; f++) {
          const base = Date.parse(`${day}T${hour}:00:00Z`)
          const clicks = Array.from({ length: 25 }, (_, i) =>
            clickRecord({ timestamp: base + f * 60_000 + i * 1000, workspaceId: link.workspaceId, linkId: link.linkId, visitorHash: `v${n++}` }))
          await writeClicksParquet(duck, clicks, path.join(outbox, `date=${day}`, `hour=${hour}`, `edge-2-${1000 + f}.parquet`))
        }
      }
    } finally {
      duck.closeSync()
    }
    const onDay = async (control: ControlHandle) =>
      (await apiClient(control.baseUrl, link.key).get(`/v1/analytics?groupBy=count&start=${day}T00:00:00Z&end=${day}T23:59:59Z&linkId=${link.linkId}`)).body.data?.clicks
    const dayFileOf = async (control: string) => {
      const manifest = await readFile(path.join(root, control, "clicks", `date=${day}`, "_day.json"), "utf8").catch(() => undefined)
      return manifest === undefined ? undefined : (JSON.parse(manifest) as { merged: Array<string> }).merged[0]
    }
    // Merged into a day file by one control, which every control then has in place of the hours' files.
    await eventually(async () => (await dayFileOf("control-1")) !== undefined && (await dayFileOf("control-2")) === (await dayFileOf("control-1")), 60_000, 200)
    const merged = (await dayFileOf("control-1"))!
    for (const name of ["control-1", "control-2"]) {
      expect((await readdir(path.join(root, name, "clicks", `date=${day}`))).includes(merged)).toBe(true)
    }
    for (const control of controls) expect(await onDay(control)).toBe(100)
  }, 120_000)

  it("brings a control started afterwards to the same figures from the bucket alone", async () => {
    const link = await linkOnEveryEngine("late")
    const answered = await visitAll(link, "late", 10)
    await everyControlCounts(link, answered, 30_000)
    const late = await startControl(controlEnv("control-3", 2), true)
    controls.push(late)
    await everyControlCounts(link, answered, 30_000, [late])
  }, 180_000)

  it("loses no acknowledged click of an engine killed with SIGKILL", async () => {
    const link = await linkOnEveryEngine("killed")
    const victim = engines[0]!
    const before = (await engineStatus(victim)).sink.acknowledged
    const answered = await visitAll(link, "killed", 40, [victim])
    // Acknowledged (fsynced to the spool), then killed before or while they roll and go out.
    await eventually(async () => (await engineStatus(victim)).sink.acknowledged >= before + answered, 10_000, 20)
    victim.child.kill("SIGKILL")
    await victim.exited
    // Its own id and directories again (on ports of its own: startEngineProcess picks them).
    const { RICOCHET_ENGINE_PORT: _port, RICOCHET_ENGINE_ADMIN_PORT: _admin, ...env } = victim.env
    engines[0] = await startEngineProcess(env)
    await everyControlCounts(link, answered, 60_000)
  }, 180_000)

  it("keeps the files while the whole NATS cluster is down, and sends them when it is back", async () => {
    const link = await linkOnEveryEngine("outage")
    await nats.stopAll()
    try {
      const answered = await visitAll(link, "outage", 10)
      expect(answered).toBe(30)
      // Rolled into Parquet, and waiting on each engine's disk.
      await eventually(async () => (await Promise.all(engines.map(engineStatus))).every((s) => s.clicksOutbox.files > 0), 20_000, 200)
      await new Promise((resolve) => setTimeout(resolve, 3_000))
      for (const engine of engines) expect((await engineStatus(engine)).clicksOutbox.files).toBeGreaterThan(0)
      await nats.startAll()
      await everyControlCounts(link, answered, 90_000)
      for (const engine of engines) await eventually(async () => (await engineStatus(engine)).clicksOutbox.files === 0, 30_000, 200)
    } finally {
      await nats.startAll()
    }
  }, 240_000)
})
