import type { DuckDBConnection } from "@duckdb/node-api"
import * as path from "node:path"
import postgres from "postgres"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { listClickFiles } from "../../shared/clicks/files.ts"
import { openDuckDb } from "../../shared/clicks/parquet.ts"
import { apiClient, createTestDatabase, eventually, removeDir, startControl, startEngineProcess, tempDir } from "../support/processes.ts"
import { exchange, headerOf, type KeptConnection, keepConnection, rawRequest, type RawResponse, tryConnect } from "../support/rawHttp.ts"

/**
 * A graceful stop of `ricochet engine` (engine/http/server.ts, engine/http/stopping.ts), on the
 * main thread and on HTTP worker threads: SIGTERM while keep-alive connections hold requests in
 * every state (answered and idle, a request written just before the signal, a cache miss waiting
 * on the database with requests pipelined behind it, several pipelined hits in one write). New
 * connections are refused from the signal on; every request written before it gets its whole
 * answer; then the engine closes the connections and exits 0, and the click of every redirect it
 * answered is in the Parquet files. A test holds a lock on `links`, so the misses wait at the
 * database for exactly as long as the test needs (the engine's lookups are bounded by
 * RICOCHET_DB_TIMEOUT_SECONDS, set long here).
 */

const HOST = "my-workspace.localhost"
const PEOPLE_UA = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"
/** Misses held at once: fewer than the engine's pool of 4 connections, so each is at the database. */
const MISSES = 2

type Engine = Awaited<ReturnType<typeof startEngineProcess>>

describe("graceful engine stop", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let dir: string
  let sql: postgres.Sql
  let duck: DuckDBConnection
  const engines: Array<Engine> = []

  beforeAll(async () => {
    db = await createTestDatabase()
    dir = await tempDir("ricochet-stop-")
    const env = { DATABASE_URL: db.url, NATS_URL: undefined, RICOCHET_DATA_DIR: dir }
    const control = await startControl(env, true)
    try {
      const api = apiClient(control.baseUrl, control.firstKey!)
      // Each visit carries a unique ?n= that the link passes on: the Parquet rows name the requests they record.
      for (const slug of ["hot", ...Array.from({ length: 2 * MISSES }, (_, i) => `cold-${i}`)]) {
        const created = await api.post("/v1/links", { url: `https://example.com/${slug}`, slug, passQuery: true })
        expect(created.status, JSON.stringify(created.body)).toBe(201)
      }
    } finally {
      // Only the engine queries the database from here on: the lock waits counted below are its misses.
      await control.stop()
    }
    sql = postgres(db.url, { max: 3, onnotice: () => {} })
    duck = await openDuckDb(1)
  }, 120_000)

  afterAll(async () => {
    for (const engine of engines) await engine.stop("SIGKILL")
    await sql?.end({ timeout: 1 })
    duck?.closeSync()
    await db?.drop()
    if (dir) await removeDir(dir)
  })

  let next = 0
  /** The n of every request sent, and of every redirect answered (to its own n). */
  const get = (slug: string) => {
    const n = next++
    return { n, bytes: rawRequest({ target: `/${slug}?n=${n}`, host: HOST, headers: [["User-Agent", PEOPLE_UA]] }) }
  }
  const locationOf = (slug: string, n: number) => `https://example.com/${slug}?n=${n}`

  const startEngine = async (workers: number) => {
    const clicksDir = path.join(dir, `clicks-${workers}-${next}`)
    const engine = await startEngineProcess({
      DATABASE_URL: db.url,
      NATS_URL: undefined,
      RICOCHET_DATA_DIR: dir,
      RICOCHET_ENGINE_WORKERS: String(workers),
      RICOCHET_ENGINE_ID: `stop-${workers}-${next}`,
      RICOCHET_CLICKS_DIR: clicksDir,
      RICOCHET_SPOOL_DIR: path.join(dir, "spool"),
      RICOCHET_DB_TIMEOUT_SECONDS: "60",
      RICOCHET_CACHE_TTL_SECONDS: "600",
      RICOCHET_ROLL_SECONDS: "0.5"
    })
    engines.push(engine)
    return Object.assign(engine, { clicksDir })
  }

  /**
   * `/hot` in every cache (one per HTTP worker), so that visits to it never wait on the database,
   * and the domain's slug filter built in each, so that a miss is one query (a filter still to
   * build would wait on the lock too).
   */
  const warm = async (engine: Engine, answered: Map<number, string>) => {
    const status = async () => {
      const now = (await (await fetch(`${engine.baseUrl}/.well-known/ricochet/status`)).json()) as {
        cache: { links: number; filters: number }
        perWorker?: Array<{ links: number; filters: number }>
      }
      return now.perWorker ?? [now.cache]
    }
    await eventually(async () => {
      for (let connection = 0; connection < 8; connection++) {
        const { n, bytes } = get("hot")
        const result = await exchange(engine.port, [bytes], [false])
        expect(result.responses.map((r) => headerOf(r, "location"))).toEqual([locationOf("hot", n)])
        answered.set(n, "hot")
        // A slug the domain does not have: the first visits build the filter.
        expect((await exchange(engine.port, [get("never-made").bytes], [false])).responses.map((r) => r.status)).toEqual([404])
      }
      return (await status()).every((worker) => worker.links >= 1 && worker.filters >= 1)
    }, 30_000, 0)
  }

  /** Holds an exclusive lock on `links` (the engine's misses wait on it) until the returned function is called. */
  const lockLinks = async (): Promise<() => Promise<void>> => {
    let release!: () => void
    let locked!: () => void
    const isLocked = new Promise<void>((resolve) => (locked = resolve))
    const held = new Promise<void>((resolve) => (release = resolve))
    const transaction = sql.begin(async (tx) => {
      await tx`LOCK TABLE links IN ACCESS EXCLUSIVE MODE`
      locked()
      await held
    })
    await Promise.race([isLocked, transaction])
    return async () => {
      release()
      await transaction
    }
  }

  /** The engine's queries waiting on the lock. */
  const waitingOnLock = async () => {
    const [row] = await sql`SELECT count(*)::int AS waiting FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'`
    return row.waiting as number
  }

  /**
   * Every response on a connection, checked: complete, well-formed, each the redirect to the n it
   * asked for; a miss may be a 503 instead, if the database held it past the engine's 2 s bound
   * on a query (LinkCache) on a slow machine.
   */
  const expectAnswers = (connection: KeptConnection, asked: ReadonlyArray<{ readonly slug: string; readonly n: number }>): Array<RawResponse> => {
    const { responses, rest, malformed } = connection.responses(asked.map(() => false))
    expect(malformed).toBeNull()
    expect(rest.length, "bytes after the last complete response").toBe(0)
    const expected = (slug: string, n: number, response: RawResponse | undefined) =>
      slug.startsWith("cold-") && response?.status === 503 ? "503 undefined" : `302 ${locationOf(slug, n)}`
    expect(responses.map((r) => `${r.status} ${headerOf(r, "location")}`)).toEqual(asked.map(({ slug, n }, i) => expected(slug, n, responses[i])))
    return responses
  }

  /** The n of every click in the Parquet files under `clicksDir`. */
  const recorded = async (clicksDir: string): Promise<Array<number>> => {
    const files = await listClickFiles(clicksDir, Date.now() - 86_400_000, Date.now() + 3_600_000)
    if (files.length === 0) return []
    const list = files.map((f) => `'${f.replace(/'/g, "''")}'`).join(", ")
    const result = await duck.runAndReadAll(`SELECT url FROM read_parquet([${list}])`)
    return result.getRowObjects().map((r) => Number(new URL(String(r.url)).searchParams.get("n")))
  }

  describe.each([0, 2])("with RICOCHET_ENGINE_WORKERS=%i", (workers) => {
    it("refuses new connections, answers every request written before SIGTERM, closes the connections, exits 0, and records every click", async () => {
      const engine = await startEngine(workers)
      const answered = new Map<number, string>()
      await warm(engine, answered)

      const asked = new Map<KeptConnection, Array<{ slug: string; n: number }>>()
      const connection = async () => {
        const opened = await keepConnection(engine.port)
        asked.set(opened, [])
        return opened
      }
      const send = async (to: KeptConnection, slugs: ReadonlyArray<string>) => {
        const requests = slugs.map((slug) => ({ slug, ...get(slug) }))
        asked.get(to)!.push(...requests.map(({ slug, n }) => ({ slug, n })))
        await to.write(Buffer.concat(requests.map((r) => r.bytes)))
      }
      // Kept alive after an answer: three to send one more request before the signal, two to stay idle.
      const keptAlive: Array<KeptConnection> = []
      for (let i = 0; i < 5; i++) {
        const opened = await connection()
        await send(opened, ["hot"])
        await eventually(async () => opened.responses([false]).responses.length === 1, 10_000)
        keptAlive.push(opened)
      }

      const release = await lockLinks()
      let released = false
      try {
        // A miss per connection, each waiting at the database before the next; then requests
        // pipelined behind it, which wait in the socket while its answer is pending.
        const behindMisses: Array<KeptConnection> = []
        for (let i = 0; i < MISSES; i++) {
          const opened = await connection()
          await send(opened, [`cold-${i}`])
          await eventually(async () => (await waitingOnLock()) === i + 1, 15_000)
          await send(opened, ["hot", "hot"])
          behindMisses.push(opened)
        }

        // Stopped, the engine reads nothing: what is written now is in its sockets' buffers, unread,
        // when it gets the signal (the requests a stop used to lose).
        engine.child.kill("SIGSTOP")
        const pipelined = await connection()
        await send(pipelined, ["hot", "hot", "hot"])
        // A miss read only once the stop has begun: it waits on the database during the stop.
        const lateMiss = await connection()
        await send(lateMiss, [`cold-${MISSES}`])
        for (const kept of keptAlive.slice(0, 3)) await send(kept, ["hot"])
        engine.child.kill("SIGTERM")
        engine.child.kill("SIGCONT")

        // New connections are refused while the misses still hold the engine in its stop.
        await eventually(async () => (await tryConnect(engine.port)) === "refused", 10_000)
        for (let i = 0; i < 5; i++) expect(await tryConnect(engine.port)).toBe("refused")
        expect(engine.child.exitCode).toBeNull()

        released = true
        await release()
        // The server closes every connection once it has answered what was sent on it.
        await Promise.all([...asked.keys()].map((kept) => kept.closed))
        expect(await engine.exited).toBe(0)

        for (const [kept, requests] of asked) {
          const responses = expectAnswers(kept, requests)
          for (const [i, { n, slug }] of requests.entries()) if (responses[i].status === 302) answered.set(n, slug)
          // Answered once the stop had begun (after the database let the misses go): the last
          // answer says the connection ends.
          if (behindMisses.includes(kept) || kept === lateMiss) expect(headerOf(responses.at(-1)!, "connection")).toBe("close")
        }
      } finally {
        if (!released) await release()
        for (const kept of asked.keys()) kept.destroy()
      }

      // Every answered redirect was recorded once, and nothing else was.
      const ns = await recorded(engine.clicksDir)
      expect(ns.length).toBe(new Set(ns).size)
      expect(ns.sort((a, b) => a - b)).toEqual([...answered.keys()].sort((a, b) => a - b))
    }, 120_000)

    it("closes a connection whose client keeps sending, at its deadline, and exits 0", async () => {
      const engine = await startEngine(workers)
      const answered = new Map<number, string>()
      await warm(engine, answered)
      const chatty = await keepConnection(engine.port)
      // One request at a time, whatever the answers say about the connection, until it is closed.
      const asked: Array<{ slug: string; n: number }> = []
      let signalled = 0
      const sending = (async () => {
        while (!chatty.isClosed()) {
          const request = get("hot")
          asked.push({ slug: "hot", n: request.n })
          await chatty.write(request.bytes).catch(() => undefined)
          await Promise.race([chatty.closed, eventually(async () => chatty.responses(asked.map(() => false)).responses.length === asked.length, 10_000, 5)])
          if (signalled === 0 && asked.length === 5) {
            signalled = Date.now()
            engine.child.kill("SIGTERM")
          }
        }
      })()
      await chatty.closed
      const closedAfter = Date.now() - signalled
      await sending
      expect(await engine.exited).toBe(0)
      // Never quiet, the connection is closed at the engine's 10 s deadline (with time for a loaded machine).
      expect(closedAfter).toBeLessThan(25_000)
      const { responses, malformed } = chatty.responses(asked.map(() => false))
      expect(malformed).toBeNull()
      // The request written as the connection closed may be unanswered; every other was answered.
      expect(responses.length).toBeGreaterThanOrEqual(asked.length - 1)
      for (const [i, response] of responses.entries()) {
        expect(`${response.status} ${headerOf(response, "location")}`).toBe(`302 ${locationOf("hot", asked[i].n)}`)
        answered.set(asked[i].n, "hot")
      }
      chatty.destroy()
      const ns = await recorded(engine.clicksDir)
      expect(ns.sort((a, b) => a - b)).toEqual([...answered.keys()].sort((a, b) => a - b))
    }, 120_000)
  })
})
