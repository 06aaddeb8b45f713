import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  ADMIN_DATABASE_URL,
  apiClient,
  type ControlHandle,
  createTestDatabase,
  eventually,
  removeDir,
  startControl,
  startEngineProcess,
  tempDir,
  visit
} from "../support/processes.ts"
import { startTcpProxy, type TcpProxy } from "../support/tcpProxy.ts"

/**
 * An engine whose PostgreSQL goes away, through a TCP proxy the test controls: first refusing
 * connections, then hanging (connections open, nothing answered). Cached links keep redirecting
 * past the TTL (the last known answer), a link the engine never saw gets a 503 "temporarily
 * unavailable" page within seconds (never a 404, never a 500), and once the database is back a
 * changed link is served fresh again within the TTL. The engine runs without NATS, so only its
 * TTL and the database can tell it of a change.
 */
const HOST = "my-workspace.localhost"
const TTL_SECONDS = 2
const TTL_MS = TTL_SECONDS * 1000
/** "Within a few seconds": the engine's database timeout is 2 s. */
const ANSWER_WITHIN_MS = 5_000
const SLACK_MS = 3_000

describe("an engine across a PostgreSQL outage (refusing, then hanging)", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let proxy: TcpProxy
  let dir: string
  let control: ControlHandle
  let engine: Awaited<ReturnType<typeof startEngineProcess>> | undefined
  let api: ReturnType<typeof apiClient>

  beforeAll(async () => {
    db = await createTestDatabase()
    const admin = new URL(ADMIN_DATABASE_URL)
    proxy = await startTcpProxy({ host: admin.hostname, port: Number(admin.port || 5432) })
    dir = await tempDir()
    const env = { DATABASE_URL: db.url, RICOCHET_DATA_DIR: dir, RICOCHET_CACHE_TTL_SECONDS: String(TTL_SECONDS), NATS_URL: undefined }
    control = await startControl(env, true)
    const proxied = new URL(db.url)
    proxied.hostname = "127.0.0.1"
    proxied.port = String(proxy.port)
    engine = await startEngineProcess({ ...env, DATABASE_URL: proxied.toString() })
    api = apiClient(control.baseUrl, control.firstKey!)
  }, 180_000)

  afterAll(async () => {
    await proxy?.close()
    await engine?.stop()
    await control?.stop()
    await db?.drop()
    if (dir) await removeDir(dir)
  })

  const url = (name: string) => `https://example.com/${name}`
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

  /** One visit, with how long the engine took to answer. */
  const timedVisit = async (slug: string) => {
    const started = Date.now()
    const answer = await visit(engine!.baseUrl, HOST, `/${slug}`)
    return { ...answer, ms: Date.now() - started }
  }

  const expectRedirect = async (slug: string, location: string) => {
    const answer = await timedVisit(slug)
    expect({ slug, status: answer.status, location: answer.location }).toEqual({ slug, status: 302, location })
    expect(answer.ms).toBeLessThan(ANSWER_WITHIN_MS)
  }

  const expectUnavailable = async (slug: string) => {
    const answer = await timedVisit(slug)
    expect({ slug, status: answer.status }).toEqual({ slug, status: 503 })
    expect(answer.ms).toBeLessThan(ANSWER_WITHIN_MS)
    expect(answer.body).toContain("Temporarily unavailable")
    expect(answer.body).not.toMatch(/not found|does not exist/i)
    expect(answer.headers["retry-after"]).toBe("5")
    expect(answer.headers["cache-control"]).toBe("private, no-store")
  }

  /** Every HTTP worker (or the one thread) has a slug filter ready for HOST. */
  const filtersReady = async () => {
    const status = (await (await fetch(`${engine!.baseUrl}/.well-known/ricochet/status`)).json()) as {
      cache: { filters: number }
      perWorker?: Array<{ filters: number }>
    }
    return (status.perWorker ?? [status.cache]).every((each) => each.filters > 0)
  }

  /** Waits until the engine redirects the slug to the location. */
  const servedWithin = async (slug: string, location: string, withinMs: number) => {
    const started = Date.now()
    let last = ""
    while (Date.now() - started < withinMs) {
      const answer = await visit(engine!.baseUrl, HOST, `/${slug}`)
      if (answer.status === 302 && answer.location === location) return Date.now() - started
      last = `${answer.status} ${answer.location}`
      await sleep(100)
    }
    throw new Error(`/${slug} not redirected to ${location} within ${withinMs} ms (last: ${last})`)
  }

  it("serves the last known answer, 503 when there is none, and recovers by itself", async () => {
    const ids: Record<string, string> = {}
    for (const slug of ["cached", "also-cached", "unseen", "unseen-too"]) {
      const created = await api.post("/v1/links", { url: url(`${slug}-1`), slug })
      expect(created.status).toBe(201)
      ids[slug] = created.body.id
    }
    await expectRedirect("cached", url("cached-1"))
    await expectRedirect("also-cached", url("also-cached-1"))
    expect((await visit(engine!.baseUrl, HOST, "/no-such-link")).status).toBe(404)
    // The engine knows it not to exist once its slug filters are built: with HTTP workers each
    // builds its own, and a worker still building when the database goes can only answer 503.
    await eventually(filtersReady, 10_000, 50)

    // PostgreSQL refuses: past the TTL every entry has expired and cannot be reloaded.
    await proxy.refuse()
    await sleep(TTL_MS + 500)
    await expectRedirect("cached", url("cached-1"))
    await expectUnavailable("unseen")
    // A slug the engine knows not to exist stays a 404.
    expect((await visit(engine!.baseUrl, HOST, "/no-such-link")).status).toBe(404)
    // The root and non-slug paths need only the domain, which is known too.
    expect((await visit(engine!.baseUrl, HOST, "/")).status).toBe(200)

    await proxy.restore()
    await servedWithin("unseen", url("unseen-1"), TTL_MS + SLACK_MS)

    // PostgreSQL hangs: connections stay open and nothing comes back.
    proxy.hang()
    await sleep(TTL_MS + 500)
    await expectRedirect("also-cached", url("also-cached-1"))
    await expectRedirect("cached", url("cached-1"))
    await expectUnavailable("unseen-too")
    // HEAD is answered the same way, without a body.
    const head = await visit(engine!.baseUrl, HOST, "/cached", { method: "HEAD" })
    expect([head.status, head.location]).toEqual([302, url("cached-1")])

    const status = await (await fetch(`${engine!.baseUrl}/.well-known/ricochet/status`)).json() as Record<string, number>
    expect(status.staleAnswers).toBeGreaterThan(0)
    expect(status.databaseFailures).toBeGreaterThan(0)

    // Changed while the engine cannot see it; once the database answers, served within the TTL.
    expect((await api.patch(`/v1/links/${ids.cached}`, { url: url("cached-2") })).status).toBe(200)
    await proxy.restore()
    await servedWithin("cached", url("cached-2"), TTL_MS + SLACK_MS)
    await servedWithin("unseen-too", url("unseen-too-1"), TTL_MS + SLACK_MS)
    expect(engine!.output()).not.toMatch(/engine request failed/)
  }, 120_000)
})
