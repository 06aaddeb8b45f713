import { randomBytes } from "node:crypto"
import { mkdir, readFile, rename } from "node:fs/promises"
import * as path from "node:path"
import { afterAll, beforeAll, expect } from "vitest"
import { writeClicksParquet } from "../../shared/clicks/clickCsv.ts"
import { streamOfBucket } from "../../shared/clicks/clickBucket.ts"
import { openDuckDb } from "../../shared/clicks/parquet.ts"
import { clickRecord } from "./clickRecord.ts"
import { startNatsCluster } from "./natsCluster.ts"
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
} from "./processes.ts"
import { startReceiver } from "./webhookReceiver.ts"

export type Engine = Awaited<ReturnType<typeof startEngineProcess>>
export interface BucketLink {
  readonly key: string
  readonly host: string
  readonly linkId: string
  readonly workspaceId: string
}

/**
 * Scale-out with no shared path (#25), as test/e2e/clicksBucket.test.ts and the fault files
 * test/faults/clicksBucket*.test.ts run it: PostgreSQL, a three-node NATS cluster with JetStream,
 * two controls and three engines (edge-1..3), each process with a directory of its own, the click
 * files travelling through an R3 object store (RICOCHET_CLICKS_TRANSPORT=bucket). Compaction runs
 * every second with no settle time. Registers the file's beforeAll / afterAll; call it inside a
 * describe.
 */
export const useClicksBucketDeployment = () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let nats: Awaited<ReturnType<typeof startNatsCluster>>
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  let root = ""
  const controls: Array<ControlHandle> = []
  const engines: Array<Engine> = []
  const bucket = `clicks-e2e-${randomBytes(4).toString("hex")}`
  let common: Record<string, string>

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
  const linkOnEveryEngine = async (slug: string): Promise<BucketLink> => {
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

  /**
   * Polled every 1.5 s unless told: the analytics allowance is 20 questions a minute per workspace,
   * across the controls (a 429 is not the count, and is asked again).
   */
  const everyControlCounts = async (link: { key: string; linkId: string }, expected: number, timeoutMs: number, among = controls, everyMs = 1_500) => {
    for (const control of among) {
      let last: unknown
      await eventually(async () => (last = await clicksOn(control, link)) === expected, timeoutMs, everyMs).catch((error: Error) => {
        // What the control said of the bucket, to tell a stalled mirror from a late file.
        const said = control.output().split("\n").filter((line) => /click (mirror|bucket)|NATS/.test(line)).slice(-12).join("\n")
        throw new Error(`${error.message}: control on ${control.baseUrl} counts ${String(last)} of ${expected} clicks; its log of the bucket:\n${said}`)
      })
    }
  }

  const engineStatus = async (engine: Engine) =>
    (await (await fetch(`${engine.baseUrl}/.well-known/ricochet/status`)).json()) as {
      sink: { acknowledged: number }
      clicksOutbox: { files: number; bytes: number; uploaded: number }
    }

  const visitAll = async (link: { host: string }, slug: string, perEngine: number, through = engines) => {
    let answered = 0
    for (const engine of through) {
      for (let i = 0; i < perEngine; i++) {
        if ((await visit(engine.baseUrl, link.host, `/${slug}`)).status === 302) answered++
      }
    }
    return answered
  }

  /**
   * Files an engine rolled on a past day, put into its outbox as an engine cut off from NATS then
   * would have left them: written beside it, then renamed in, so its uploader never sees half a
   * file. `hours` × `filesPerHour` files of `perFile` clicks each, sequence numbers from `firstSeq`.
   */
  const pastDayFiles = async (engineId: string, link: BucketLink, day: string, options: {
    readonly hours: ReadonlyArray<string>
    readonly filesPerHour: number
    readonly perFile: number
    readonly firstSeq: number
  }) => {
    const staging = path.join(root, `staging-${randomBytes(4).toString("hex")}`)
    const outbox = path.join(root, engineId, "spool", engineId, "outbox")
    const written: Array<string> = []
    const duck = await openDuckDb(1)
    try {
      let seq = options.firstSeq
      for (const hour of options.hours) {
        for (let f = 0; f < options.filesPerHour; f++, seq++) {
          const base = Date.parse(`${day}T${hour}:00:00Z`)
          const clicks = Array.from({ length: options.perFile }, (_, i) =>
            clickRecord({ timestamp: base + f * 60_000 + i * 1000, workspaceId: link.workspaceId, linkId: link.linkId, visitorHash: `${engineId}-${seq}-${i}` }))
          const name = path.join(`date=${day}`, `hour=${hour}`, `${engineId}-${seq}.parquet`)
          await writeClicksParquet(duck, clicks, path.join(staging, name))
          written.push(name)
        }
      }
    } finally {
      duck.closeSync()
    }
    for (const name of written) {
      await mkdir(path.dirname(path.join(outbox, name)), { recursive: true })
      await rename(path.join(staging, name), path.join(outbox, name))
    }
    await removeDir(staging)
    return options.hours.length * options.filesPerHour * options.perFile
  }

  /** Clicks of the link on one past day, as a control answers. */
  const clicksOnDay = async (control: ControlHandle, link: BucketLink, day: string) =>
    (await apiClient(control.baseUrl, link.key).get(`/v1/analytics?groupBy=count&start=${day}T00:00:00Z&end=${day}T23:59:59Z&linkId=${link.linkId}`)).body.data?.clicks

  /** The day file a control's day manifest names (compaction's output as its mirror has it), if any. */
  const dayFileOf = async (control: string, day: string) => {
    const manifest = await readFile(path.join(root, control, "clicks", `date=${day}`, "_day.json"), "utf8").catch(() => undefined)
    return manifest === undefined ? undefined : (JSON.parse(manifest) as { merged: Array<string> }).merged[0]
  }

  return {
    /** The JetStream stream behind the click bucket. */
    stream: streamOfBucket(bucket),
    get root() {
      return root
    },
    get nats() {
      return nats
    },
    get receiver() {
      return receiver
    },
    controls,
    engines,
    controlEnv,
    linkOnEveryEngine,
    clicksOn,
    everyControlCounts,
    engineStatus,
    visitAll,
    pastDayFiles,
    clicksOnDay,
    dayFileOf
  }
}
