import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type EngineStack, startEngineStack } from "../support/engineStack.ts"
import { eventually, roomInThisMinute, visit } from "../support/processes.ts"
import { sleep } from "../support/time.ts"

/**
 * An engine with RICOCHET_ENGINE_WORKERS=3 (engine/workers/): three uWebSockets.js apps on one
 * port, each with its own cache. Every request below is a new connection, which the kernel hands
 * to one of the workers; the status page shows each worker's share.
 */
describe("an engine with three HTTP workers", () => {
  const WORKERS = 3
  const CONNECTIONS = 48
  let stack: EngineStack

  interface PerWorker {
    readonly links: number
    readonly filters: number
    readonly domains: number
    readonly queries: number
    readonly answered: number
  }
  interface Status {
    readonly workers: number
    readonly queries: number
    readonly clicks: { readonly people: number }
    readonly sink: { readonly acknowledged: number }
    readonly perWorker: ReadonlyArray<PerWorker>
  }
  const status = async (): Promise<Status> => (await fetch(`${stack.engine.baseUrl}/.well-known/ricochet/status`)).json() as Promise<Status>
  /** Every redirect this file gets, each a click counted once: a person's browser on a new connection. */
  let visits = 0
  const locations = async () => {
    const answers = await Promise.all(Array.from({ length: CONNECTIONS }, () => visit(stack.engine.baseUrl, stack.host, "/spread")))
    // A visit that comes before the link's create event reached its worker is a 404, not a click.
    visits += answers.filter((answer) => answer.status === 302).length
    return answers.map((answer) => answer.location)
  }

  beforeAll(async () => {
    stack = await startEngineStack({ RICOCHET_ENGINE_WORKERS: String(WORKERS), RICOCHET_CACHE_TTL_SECONDS: "600" })
  }, 120_000)
  afterAll(async () => {
    await stack?.stop()
  })

  it("one worker building a domain's slug filter has every worker build one", async () => {
    // Before any visit no worker has a filter. The first visit loads the domain (relayed to every
    // worker); the second, to whichever worker, is the first to consult a filter, and builds it.
    expect((await status()).perWorker.map((worker) => worker.filters)).toEqual(Array(WORKERS).fill(0))
    expect((await visit(stack.engine.baseUrl, stack.host, "/never-made")).status).toBe(404)
    await eventually(async () => (await status()).perWorker.every((worker) => worker.domains > 0), 5_000, 50)
    expect((await visit(stack.engine.baseUrl, stack.host, "/never-made-either")).status).toBe(404)
    await eventually(async () => (await status()).perWorker.every((worker) => worker.filters > 0), 5_000, 100)
  })

  it("serves from every worker, and a change reaches every worker's cache over the bus", async () => {
    const created = await stack.api.post("/v1/links", { url: "https://example.com/first", slug: "spread" })
    expect(created.status).toBe(201)
    await eventually(async () => (await locations()).every((l) => l === "https://example.com/first"), 10_000, 100)
    const before = await status()
    expect(before.workers).toBe(WORKERS)
    expect(before.perWorker).toHaveLength(WORKERS)
    // Connections went to every worker, and what one worker loaded warmed the others.
    for (const worker of before.perWorker) {
      expect(worker.answered).toBeGreaterThan(0)
      expect(worker.links).toBeGreaterThanOrEqual(1)
    }

    expect((await stack.api.patch(`/v1/links/${created.body.id}`, { url: "https://example.com/second" })).status).toBe(200)
    await eventually(async () => (await locations()).every((l) => l === "https://example.com/second"), 5_000, 50)
    // Every worker took the new url from the change event (TTL 600 s): none asked the database again.
    expect((await status()).queries).toBe(before.queries)
  })

  it("workers missing the same slug at once share one database query", async () => {
    expect((await stack.api.post("/v1/links", { url: "https://example.com/rush", slug: "rush" })).status).toBe(201)
    const before = await status()
    // The first query waits on a lock the test holds, so every worker's miss arrives while it runs.
    const release = await stack.lockTable("links")
    const answers = Promise.all(Array.from({ length: CONNECTIONS }, () => visit(stack.engine.baseUrl, stack.host, "/rush")))
    await sleep(500)
    await release()
    visits += CONNECTIONS
    expect(new Set((await answers).map((answer) => `${answer.status} ${answer.location}`))).toEqual(new Set(["302 https://example.com/rush"]))
    const after = await status()
    expect(after.queries - before.queries).toBe(1)
    // Each worker still counts its own misses.
    expect(after.perWorker.filter((worker, i) => worker.queries > before.perWorker[i].queries).length).toBeGreaterThan(1)
  })

  it("counts the clicks of every worker through the one writer", async () => {
    await locations()
    let now = await status()
    await eventually(async () => (now = await status()).sink.acknowledged >= visits, 10_000, 100)
    // Give a doubled click the time to show, then compare.
    await sleep(500)
    now = await status()
    expect([now.clicks.people, now.sink.acknowledged]).toEqual([visits, visits])
  })

  it("counts wrong password guesses once per engine, whichever worker each connection reaches", async () => {
    expect((await stack.api.post("/v1/links", { url: "https://example.com/locked", slug: "locked", password: "right" })).status).toBe(201)
    const guess = (password: string) =>
      visit(stack.engine.baseUrl, stack.host, "/locked", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: `password=${password}`
      })
    // Every worker shows the password form (a GET counts no guess).
    const form = () => visit(stack.engine.baseUrl, stack.host, "/locked")
    await eventually(async () => (await Promise.all(Array.from({ length: 12 }, form))).every((answer) => answer.status === 200), 10_000, 100)
    // Five wrong guesses in one minute (the limiter's windows are fixed minutes), each on a new
    // connection; then every worker refuses.
    await roomInThisMinute(20)
    for (let i = 0; i < 5; i++) expect((await guess(`wrong${i}`)).status).toBe(403)
    const after = await Promise.all(Array.from({ length: 12 }, () => guess("right")))
    expect(after.map((answer) => answer.status)).toEqual(Array(12).fill(429))
  })

  it("stops gracefully on SIGTERM (every worker's sockets closed, exit 0)", async () => {
    expect(await stack.engine.stop("SIGTERM")).toBe(0)
  })
})
