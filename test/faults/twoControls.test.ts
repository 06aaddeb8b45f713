import { mkdir, readdir, rename } from "node:fs/promises"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { writeClicksParquet } from "../../shared/clicks/clickCsv.ts"
import { DAY_MANIFEST, listClickFiles } from "../../shared/clicks/files.ts"
import { openDuckDb, quote } from "../../shared/clicks/parquet.ts"
import { clickRecord } from "../support/clickRecord.ts"
import { startDnsServer } from "../support/dnsServer.ts"
import {
  apiClient,
  type ControlHandle,
  createTestDatabase,
  eventually,
  removeDir,
  roomInThisMinute,
  startControl,
  tempDir
} from "../support/processes.ts"

/**
 * Two control processes on one PostgreSQL at once, as a scaled-out deployment runs them: the
 * analytics allowance is one for both, each custom domain is checked by one of them at a time,
 * and the click files they share are compacted once (every click once, one merge per day).
 *
 * Each process asks its own DNS server, so the test sees which process checked which domain
 * when. Compaction runs every second with no settle time; days of clicks appear in the shared
 * directory at once while both processes run, more than one pass can merge in a second, so the
 * two processes' passes overlap.
 */

const DOMAINS = 6
const RECHECK_SECONDS = 1
const DAYS = 20
const HOURS_PER_DAY = 2
const FILES_PER_HOUR = 2
const CLICKS_PER_FILE = 20
const DAY_MS = 86_400_000

describe("two control processes on one database", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let dns: Array<Awaited<ReturnType<typeof startDnsServer>>> = []
  let dirs: Array<string> = []
  let clicksDir: string
  let stagingDir: string
  let controls: Array<ControlHandle> = []
  let key: string
  const dates: Array<string> = []

  /** Days of engine files, several per hour, staged before either process starts. */
  const writeClicks = async () => {
    const duck = await openDuckDb(1)
    try {
      let n = 0
      for (let d = 0; d < DAYS; d++) {
        const day = new Date(Date.now() - (3 + d) * DAY_MS).toISOString().slice(0, 10)
        dates.push(day)
        for (let h = 0; h < HOURS_PER_DAY; h++) {
          const hour = String(h * 5).padStart(2, "0")
          for (let f = 0; f < FILES_PER_HOUR; f++) {
            const base = Date.parse(`${day}T${hour}:00:00Z`)
            const clicks = Array.from({ length: CLICKS_PER_FILE }, (_, i) =>
              clickRecord({ timestamp: base + f * 60_000 + i * 1000, workspaceId: "ws_compact", linkId: `lnk_${f}`, visitorHash: `v${n++}` }))
            await writeClicksParquet(duck, clicks, path.join(stagingDir, `date=${day}`, `hour=${hour}`, `engine${f}-${h}.parquet`))
          }
        }
      }
    } finally {
      duck.closeSync()
    }
  }

  beforeAll(async () => {
    db = await createTestDatabase()
    dns = [await startDnsServer(), await startDnsServer()]
    dirs = [await tempDir(), await tempDir(), await tempDir()]
    clicksDir = path.join(dirs[2], "clicks")
    stagingDir = path.join(dirs[2], "staging")
    await mkdir(clicksDir)
    await writeClicks()
    const common = {
      DATABASE_URL: db.url,
      RICOCHET_CLICKS_DIR: clicksDir,
      RICOCHET_DOMAIN_RECHECK_SECONDS: String(RECHECK_SECONDS),
      RICOCHET_COMPACT_SECONDS: "1",
      RICOCHET_COMPACT_SETTLE_SECONDS: "0"
    }
    await Promise.all([0, 1].map(async (i) => {
      controls[i] = await startControl({ ...common, RICOCHET_DATA_DIR: dirs[i], RICOCHET_DNS_SERVERS: dns[i].server }, true)
    }))
    key = controls.map((c) => c.firstKey).find((k) => k !== undefined)!
  }, 120_000)

  afterAll(async () => {
    await Promise.all(controls.map((c) => c?.stop()))
    await Promise.all(dns.map((d) => d.close()))
    await db?.drop()
    await Promise.all(dirs.map(removeDir))
  })

  it("shares the analytics allowance: 20 a minute across both processes, then 429 from either", async () => {
    await roomInThisMinute(15)
    const clients = controls.map((c) => apiClient(c.baseUrl, key))
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => clients[i % 2].get("/v1/analytics?groupBy=count&interval=24h")))
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200))
    for (const a of answers) expect(a.headers.get("ratelimit-limit")).toBe("20")
    // Every count from 19 down to 0 handed out exactly once, whichever process answered.
    expect(answers.map((a) => Number(a.headers.get("ratelimit-remaining"))).sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i))
    for (const client of clients) {
      const over = await client.get("/v1/analytics?groupBy=count&interval=24h")
      expect(over.status).toBe(429)
      expect(over.body.error.code).toBe("rate_limit_exceeded")
      expect(Number(over.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
    }
  })

  it("checks each custom domain from one process at a time, once per recheck interval", async () => {
    const api = apiClient(controls[0].baseUrl, key)
    const hosts = Array.from({ length: DOMAINS }, (_, i) => `d${i}.twocontrols.example`)
    for (const host of hosts) expect((await api.post("/v1/domains", { host })).status).toBe(201)
    const from = Date.now()
    const windowMs = 8_000
    await new Promise((r) => setTimeout(r, windowMs))

    for (const host of hosts) {
      const name = `_ricochet-challenge.${host}`
      // Each check asks for the challenge TXT record once, through its process's server.
      const checks = dns
        .flatMap((server, process) => server.queries.filter((q) => q.name === name && q.type === "TXT" && q.at >= from).map((q) => ({ at: q.at, process })))
        .sort((a, b) => a.at - b.at)
      expect(checks.length, host).toBeGreaterThanOrEqual(3)
      expect(checks.length, host).toBeLessThanOrEqual(windowMs / (RECHECK_SECONDS * 1000) + 2)
      const gaps = checks.slice(1).map((c, i) => c.at - checks[i].at)
      // Two processes checking the same domain together would ask within milliseconds of each other.
      expect(Math.min(...gaps), `${host}: ${JSON.stringify(checks)}`).toBeGreaterThanOrEqual(RECHECK_SECONDS * 500)
    }
    // Both processes take part (domains are claimed by whichever asks first): on a busy machine one
    // process can win every claim of the window above, so the other is given a while longer.
    await eventually(async () => dns.every((server) => server.queries.some((q) => q.type === "TXT" && q.at >= from)), 30_000, 200)
  })

  it("compacts the shared click files once: one merge per day, every click exactly once", async () => {
    for (const date of dates) await rename(path.join(stagingDir, `date=${date}`), path.join(clicksDir, `date=${date}`))
    await eventually(async () => {
      for (const date of dates) {
        const entries = await readdir(path.join(clicksDir, `date=${date}`))
        if (!entries.includes(DAY_MANIFEST)) return false
      }
      return true
    }, 60_000, 250)
    // A pass that merged a day another pass was merging would leave a second day file (replaced
    // files stay five minutes before they are deleted).
    for (const date of dates) {
      const dayFiles = (await readdir(path.join(clicksDir, `date=${date}`))).filter((name) => name.startsWith("day-") && name.endsWith(".parquet"))
      expect(dayFiles, date).toHaveLength(1)
    }
    const files = await listClickFiles(clicksDir, Date.now() - (DAYS + 4) * DAY_MS, Date.now())
    expect(files.every((file) => path.basename(file).startsWith("day-"))).toBe(true)
    const duck = await openDuckDb(1)
    try {
      const reader = await duck.runAndReadAll(
        `SELECT count(*)::INTEGER AS n, count(DISTINCT visitor_hash)::INTEGER AS distinct_clicks FROM read_parquet([${files.map(quote).join(", ")}])`
      )
      const total = DAYS * HOURS_PER_DAY * FILES_PER_HOUR * CLICKS_PER_FILE
      expect(reader.getRowObjects()[0]).toEqual({ n: total, distinct_clicks: total })
    } finally {
      duck.closeSync()
    }
  })
})
