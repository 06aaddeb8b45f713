import type { DuckDBConnection } from "@duckdb/node-api"
import { writeFile } from "node:fs/promises"
import * as path from "node:path"
import type { Worker } from "node:worker_threads"
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest"
import { ClickChannel } from "../../engine/clicks/clickChannel.ts"
import { CLICK_WRITER_NICE } from "../../engine/clicks/writerPriority.ts"
import { threadNiceValues } from "../support/threadNice.ts"
import type { ClickWriterOptions } from "../../engine/clicks/clickWriterProtocol.ts"
import { bundledCountryDatabase } from "../../engine/geo/geo.ts"
import type { RawClick } from "../../shared/clicks/click.ts"
import { listClickFiles } from "../../shared/clicks/files.ts"
import { INTERNED_FIELDS } from "../../shared/clicks/writerMessages.ts"
import { openDuckDb, quote } from "../../shared/clicks/parquet.ts"
import { canChattr, immutableDirs } from "../support/immutableDirs.ts"
import { removeDir, tempDir } from "../support/processes.ts"

/**
 * The click writer thread as the engine uses it: raw clicks in on the redirect thread; derived,
 * spooled and rolled to Parquet on the writer thread; counts back for the engine's status.
 */

const T = Date.parse("2030-06-15T12:00:00.000Z")
const PERSON = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"
const AGENT = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot"
const BOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"

let serial = 0
const raw = (userAgent: string): RawClick => ({
  timestamp: T + serial++,
  workspaceId: "ws_1",
  linkId: "lnk_1",
  domain: "go.example.com",
  slug: "abc",
  url: `https://example.com/?n=${serial}`,
  variant: null,
  ip: "8.8.8.8",
  userAgent,
  referer: "https://news.example.org/post",
  geoHeader: "DE",
  signatureAgent: ""
})

let duck: DuckDBConnection
beforeAll(async () => {
  duck = await openDuckDb()
})
afterAll(() => duck?.closeSync())

describe("ClickChannel and the click writer thread", () => {
  let root: string
  let channel: ClickChannel | undefined
  const options = (): ClickWriterOptions => ({
    spool: { spoolDir: path.join(root, "spool"), clicksDir: path.join(root, "clicks"), engineId: "e1", fsyncMs: 10, rollMs: 3_600_000 },
    secret: "s",
    geoHeader: "cf-ipcountry",
    countryDatabase: bundledCountryDatabase(),
    cityDatabase: undefined
  })
  const rows = async () => {
    const files = await listClickFiles(path.join(root, "clicks"), T - 3_600_000, T + 3_600_000)
    if (files.length === 0) return []
    return (await duck.runAndReadAll(
      `SELECT audience, country, device, browser, referer_host, visitor_hash FROM read_parquet([${files.map(quote).join(", ")}], hive_partitioning = false)`
    )).getRowObjects()
  }

  beforeEach(async () => {
    root = await tempDir("ricochet-writer-")
  })
  const dirs = immutableDirs()
  afterEach(async () => {
    dirs.thawAll()
    vi.restoreAllMocks()
    await channel?.close()
    channel = undefined
    await removeDir(root)
  })

  it("derives, spools and rolls what the redirect thread hands over; bots are counted, never written", async () => {
    channel = await ClickChannel.start(options())
    for (let i = 0; i < 300; i++) channel.add(raw(PERSON))
    for (let i = 0; i < 20; i++) channel.add(raw(AGENT))
    for (let i = 0; i < 7; i++) channel.add(raw(BOT))
    await channel.flush()
    expect(channel.counts).toEqual({ clicks: { people: 300, agent: 20, bot: 7 }, sink: { acknowledged: 320, rolled: 320, pending: 0, unrolled: 0 }, outbox: { files: 0, bytes: 0, uploaded: 0 }, dropped: 0 })
    const written = await rows()
    expect(written).toHaveLength(320)
    expect(written.filter((r) => r.audience === "agent")).toHaveLength(20)
    expect(written[0]).toMatchObject({ country: "DE", referer_host: "news.example.org" })
    expect(written.every((r) => typeof r.visitor_hash === "string" && (r.visitor_hash as string).length > 0)).toBe(true)
    expect(channel.dropped).toBe(0)
  })

  it.runIf(process.platform === "linux")("runs the writer thread at a lower priority than the thread that hands clicks over", async () => {
    const before = threadNiceValues()
    const main = before.get(process.pid)!
    const lowered = Math.max(main, CLICK_WRITER_NICE)
    channel = await ClickChannel.start(options())
    const after = threadNiceValues()
    expect(after.get(process.pid)).toBe(main)
    // The writer and the DuckDB threads it starts are new threads at the lowered value.
    const newLowered = [...after].filter(([tid, nice]) => !before.has(tid) && nice === lowered)
    expect(newLowered.length).toBeGreaterThanOrEqual(1)
  })

  it("drops (and counts) clicks beyond the backlog the writer has not yet seen, instead of queueing without bound", async () => {
    channel = await ClickChannel.start(options(), { maxBacklog: 100 })
    // In one turn: the writer cannot have reported anything yet.
    for (let i = 0; i < 500; i++) channel.add(raw(PERSON))
    await channel.flush()
    expect(channel.dropped).toBe(400)
    expect(channel.counts.clicks.people).toBe(100)
    expect(await rows()).toHaveLength(100)
    // Once the writer has caught up, clicks are taken again.
    channel.add(raw(PERSON))
    await channel.flush()
    expect(channel.counts.clicks.people).toBe(101)
    expect(channel.dropped).toBe(400)
  })

  it("messages between the threads that do not decode are refused, logged and counted by either end; the rest still flows", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {})
    channel = await ClickChannel.start(options())
    const worker = (channel as unknown as { worker: Worker }).worker
    // To the writer: a batch whose arrays disagree, one missing its ids, an unknown type.
    const batch = { reset: true, base: 0, strings: ["x"], timestamps: new Float64Array([T]), variants: new Int32Array([-1]), ips: ["8.8.8.8"], ids: new Uint32Array(INTERNED_FIELDS.length) }
    worker.postMessage({ type: "clicks", clicks: { ...batch, variants: new Int32Array(2) } })
    worker.postMessage({ type: "clicks", clicks: { ...batch, ids: undefined } })
    worker.postMessage({ type: "rewind" })
    // To the redirect thread: counts of the wrong shape, a flush answer without its id.
    worker.emit("message", { type: "counts", clicks: "many" })
    worker.emit("message", { type: "flushed" })
    for (let i = 0; i < 3; i++) channel.add(raw(PERSON))
    await channel.flush()
    await vi.waitFor(() => expect(channel!.refusedMessages).toBe(5), { timeout: 2_000 })
    expect(channel.counts.clicks.people).toBe(3)
    expect(await rows()).toHaveLength(3)
  })

  it("a batch the writer cannot place in its string table is refused, the table is sent whole again, and later clicks are written as they were", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {})
    channel = await ClickChannel.start(options())
    const refusedBefore = channel.refusedMessages
    for (let i = 0; i < 3; i++) channel.add(raw(PERSON))
    await channel.flush()
    // A batch lost on the way: the redirect thread counts its strings as sent, the writer never saw them.
    const pending = (channel as unknown as { pending: { add: (click: RawClick) => void; take: () => unknown } }).pending
    pending.add({ ...raw(AGENT), referer: "https://lost.example.net/" })
    pending.take()
    channel.add({ ...raw(AGENT), referer: "https://lost.example.net/" })
    await channel.flush()
    await vi.waitFor(() => expect(channel!.refusedMessages - refusedBefore).toBe(1), { timeout: 2_000 })
    channel.add({ ...raw(AGENT), referer: "https://lost.example.net/" })
    channel.add(raw(PERSON))
    await channel.flush()
    expect(channel.counts.clicks).toEqual({ people: 4, agent: 1, bot: 0 })
    const written = await rows()
    expect(written).toHaveLength(5)
    expect(written.filter((row) => row.audience === "agent").map((row) => row.referer_host)).toEqual(["lost.example.net"])
  })

  it("close() writes what is still queued and ends the thread", async () => {
    // A close deadline far beyond the roll to Parquet on a loaded machine: about what, not how fast.
    channel = await ClickChannel.start(options(), { closeTimeoutMs: 100_000 })
    for (let i = 0; i < 5; i++) channel.add(raw(PERSON))
    await channel.close()
    channel = undefined
    expect(await rows()).toHaveLength(5)
  })

  it("a writer that dies is restarted; what it had acknowledged stays, later clicks are written", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {})
    channel = await ClickChannel.start(options())
    for (let i = 0; i < 10; i++) channel.add(raw(PERSON))
    await channel.flush()
    await (channel as unknown as { worker: Worker }).worker.terminate()
    for (let i = 0; i < 4; i++) channel.add(raw(PERSON))
    // Queued meanwhile, posted once the new writer is ready; flush waits for it.
    await channel.flush()
    expect(channel.counts.clicks.people).toBe(14)
    expect(await rows()).toHaveLength(14)
    expect(errors.mock.calls.some(([message]) => String(message).includes("click writer exited"))).toBe(true)
  })

  it("close() while a dead writer is being restarted still writes what was queued", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {})
    // The restart (a new thread opening DuckDB) and the close's roll to Parquet take seconds on a
    // loaded machine: a close deadline far beyond them, so this is about order, not speed.
    channel = await ClickChannel.start(options(), { closeTimeoutMs: 100_000 })
    await (channel as unknown as { worker: Worker }).worker.terminate()
    for (let i = 0; i < 3; i++) channel.add(raw(PERSON))
    await channel.close()
    channel = undefined
    expect(await rows()).toHaveLength(3)
  })

  it.skipIf(!canChattr)("a spool that refuses writes: clicks wait, those beyond its buffer are dropped and counted, and recording resumes by itself", async () => {
    const base = options()
    channel = await ClickChannel.start({ ...base, spool: { ...base.spool, maxPendingClicks: 50 } })
    const current = channel
    for (let i = 0; i < 10; i++) current.add(raw(PERSON))
    await current.flush()
    dirs.freeze(base.spool.spoolDir)
    for (let i = 0; i < 30; i++) current.add(raw(PERSON))
    await vi.waitFor(() => expect(current.counts.sink.pending).toBe(30), { timeout: 10_000, interval: 20 })
    // One batch that does not fit beside the 30 waiting: refused whole, and counted.
    for (let i = 0; i < 40; i++) current.add(raw(PERSON))
    await vi.waitFor(() => expect(current.dropped).toBe(40), { timeout: 10_000, interval: 20 })
    expect(current.counts.sink).toMatchObject({ acknowledged: 10, pending: 30 })
    dirs.thaw(base.spool.spoolDir)
    await vi.waitFor(() => expect(current.counts.sink).toMatchObject({ acknowledged: 40, pending: 0 }), { timeout: 10_000, interval: 20 })
    for (let i = 0; i < 5; i++) current.add(raw(PERSON))
    await current.flush()
    expect(current.counts).toEqual({ clicks: { people: 85, agent: 0, bot: 0 }, sink: { acknowledged: 45, rolled: 45, pending: 0, unrolled: 0 }, outbox: { files: 0, bytes: 0, uploaded: 0 }, dropped: 40 })
    expect(current.dropped).toBe(40)
    expect(await rows()).toHaveLength(45)
  })

  it("a spool that cannot be opened fails the start with the reason", async () => {
    const blocker = path.join(root, "not-a-directory")
    await writeFile(blocker, "x")
    vi.spyOn(console, "error").mockImplementation(() => {})
    await expect(ClickChannel.start({ ...options(), spool: { ...options().spool, spoolDir: path.join(blocker, "spool") } })).rejects.toThrow(/click writer/)
  })
})
