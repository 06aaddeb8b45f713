import type { DuckDBConnection } from "@duckdb/node-api"
import { existsSync } from "node:fs"
import { mkdir, rename } from "node:fs/promises"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { sendAdminCommand } from "../../control/admin/adminChannel.ts"
import type { Plan } from "../../control/kernel/plans.ts"
import { parseDevice } from "../../engine/visitors/device.ts"
import type { ClickRecord } from "../../shared/clicks/click.ts"
import { listClickFiles, MANIFEST } from "../../shared/clicks/files.ts"
import { writeClicksParquet } from "../../shared/clicks/clickCsv.ts"
import { openDuckDb, partitionOf } from "../../shared/clicks/parquet.ts"
import { clickRecord } from "../support/clickRecord.ts"
import { startDnsServer } from "../support/dnsServer.ts"
import {
  apiClient,
  type ControlHandle,
  createWorkspace,
  eventually,
  removeDir,
  roomInThisMinute,
  startControl,
  tempDir,
  visit
} from "../support/processes.ts"

/**
 * GET /v1/analytics end to end (docs/api.md, Analytics and Limits; docs/decisions.md#analytics,
 * "Who clicked", "Errors"): one embedded `npm start`, a known mix of visits sent through its
 * engine, every grouping and every filter checked against numbers computed here from that mix.
 *
 * The analytics allowance is 20 requests a minute per workspace, so the same links and visits are
 * set up in three workspaces and the questions are spread over them (each stays within 20).
 */

const HOUR = 3_600_000
const DAY = 24 * HOUR
const CNAME_TARGET = "cname.ricochet.test"

const UA = {
  desktop: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  iphone: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
  android: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36",
  ipad: "Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
  mac: "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.4; rv:125.0) Gecko/20100101 Firefox/125.0",
  chatgpt: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot",
  claude: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)",
  perplexity: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)",
  curl: "curl/8.5.0",
  googlebot: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
  gptbot: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.1; +https://openai.com/gptbot"
} as const
type UaKey = keyof typeof UA

/** What each user agent is recorded as. People's devices are spelled out; agents' are whatever the parser says. */
const PEOPLE: Partial<Record<UaKey, { device: string; browser: string; os: string }>> = {
  desktop: { device: "desktop", browser: "Chrome", os: "Windows" },
  iphone: { device: "mobile", browser: "Safari", os: "iOS" },
  android: { device: "mobile", browser: "Chrome", os: "Android" },
  ipad: { device: "tablet", browser: "Safari", os: "iOS" },
  mac: { device: "desktop", browser: "Firefox", os: "macOS" }
}
const AGENTS: ReadonlyArray<UaKey> = ["chatgpt", "claude", "perplexity"]
const BOTS: ReadonlyArray<UaKey> = ["curl", "googlebot", "gptbot"]

type LinkKey = "alpha" | "beta" | "gamma" | "delta"
const BETA_UTM = { source: "newsletter", medium: "email", campaign: "spring", term: "shoes", content: "hero" }
const TWITTER = "utm_source=twitter&utm_medium=social&utm_campaign=launch"
const SUMMER = "utm_source=newsletter&utm_campaign=summer&utm_term=boots&utm_content=footer"

interface VisitSpec {
  readonly link: LinkKey
  readonly ua: UaKey
  readonly country?: string
  readonly referer?: string
  readonly query?: string
  readonly head?: boolean
  /** Sends a Web Bot Auth Signature-Agent header: an agent whatever the user agent. */
  readonly signed?: boolean
}

/** The mix: 14 people, 5 agents, and 8 visits that must not count (bots, HEAD). */
const VISITS: ReadonlyArray<VisitSpec> = [
  { link: "alpha", ua: "desktop", country: "US", referer: "https://www.google.com/search?q=ricochet" },
  { link: "alpha", ua: "desktop", country: "US" },
  { link: "alpha", ua: "iphone", country: "DE", referer: "https://t.co/abc" },
  { link: "alpha", ua: "android", country: "FR" },
  { link: "alpha", ua: "ipad", referer: "https://www.google.com/" },
  { link: "beta", ua: "desktop", country: "US", referer: "https://news.ycombinator.com/item?id=1" },
  { link: "beta", ua: "iphone", country: "us" },
  { link: "beta", ua: "android", country: "DE" },
  { link: "gamma", ua: "iphone", country: "JP", referer: "https://T.CO/xyz", query: TWITTER },
  { link: "gamma", ua: "desktop", country: "US", query: TWITTER },
  { link: "gamma", ua: "android", country: "GB", query: SUMMER },
  { link: "gamma", ua: "ipad", country: "DE" },
  { link: "delta", ua: "desktop", country: "FR", referer: "https://www.google.com/" },
  { link: "delta", ua: "mac", country: "US" },
  { link: "alpha", ua: "chatgpt", country: "US" },
  { link: "beta", ua: "claude" },
  { link: "delta", ua: "perplexity", country: "DE", referer: "https://www.perplexity.ai/" },
  { link: "gamma", ua: "desktop", country: "US", query: TWITTER, signed: true },
  { link: "alpha", ua: "chatgpt", country: "JP", referer: "https://chatgpt.com/" },
  // Never counted.
  { link: "alpha", ua: "curl", country: "US" },
  { link: "beta", ua: "googlebot", country: "US" },
  { link: "gamma", ua: "gptbot", query: TWITTER },
  { link: "delta", ua: "curl" },
  { link: "alpha", ua: "googlebot", referer: "https://t.co/abc" },
  { link: "alpha", ua: "desktop", country: "US", head: true },
  { link: "gamma", ua: "iphone", country: "JP", query: TWITTER, head: true },
  { link: "delta", ua: "chatgpt", head: true }
]

/** One counted click as the analytics should see it. */
interface Expected {
  readonly link: LinkKey
  readonly at: number
  readonly audience: "people" | "agent"
  readonly country: string | null
  readonly device: string
  readonly browser: string
  readonly os: string
  readonly referer: string
  readonly utmSource: string | null
  readonly utmMedium: string | null
  readonly utmCampaign: string | null
  readonly utmTerm: string | null
  readonly utmContent: string | null
}

const expectedOf = (spec: VisitSpec, at: number): Expected | null => {
  if (spec.head || (BOTS.includes(spec.ua) && !spec.signed)) return null
  const agent = spec.signed || AGENTS.includes(spec.ua)
  const parsed = PEOPLE[spec.ua] ?? (({ device, browser, os }) => ({ device, browser, os }))(parseDevice(UA[spec.ua]))
  const query = new URLSearchParams(spec.link === "gamma" ? spec.query ?? "" : "")
  const utm = (name: keyof typeof BETA_UTM) => (spec.link === "beta" ? BETA_UTM[name] : query.get(`utm_${name}`))
  return {
    link: spec.link,
    at,
    audience: agent ? "agent" : "people",
    country: spec.country?.toUpperCase() ?? null,
    ...parsed,
    referer: spec.referer === undefined ? "(direct)" : new URL(spec.referer).hostname.toLowerCase(),
    utmSource: utm("source"),
    utmMedium: utm("medium"),
    utmCampaign: utm("campaign"),
    utmTerm: utm("term"),
    utmContent: utm("content")
  }
}

type Row = Record<string, unknown>
const counts = (list: ReadonlyArray<Expected>) => ({
  clicks: list.length,
  people: list.filter((e) => e.audience === "people").length,
  agents: list.filter((e) => e.audience === "agent").length
})

/** Breakdown rows as docs/decisions.md#analytics has them: key fields, then the counts; most clicks first, ties by key (nulls last). */
const breakdown = (list: ReadonlyArray<Expected>, keyOf: (e: Expected) => Record<string, string | null>, skip?: (e: Expected) => boolean): Array<Row> => {
  const groups = new Map<string, { keys: Record<string, string | null>; members: Array<Expected> }>()
  for (const e of list) {
    if (skip?.(e)) continue
    const keys = keyOf(e)
    const id = JSON.stringify(keys)
    let group = groups.get(id)
    if (group === undefined) groups.set(id, (group = { keys, members: [] }))
    group.members.push(e)
  }
  const compare = (a: string | null, b: string | null) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1)
  return [...groups.values()]
    .sort((a, b) => b.members.length - a.members.length || Object.keys(a.keys).reduce((r, k) => r || compare(a.keys[k], b.keys[k]), 0))
    .map((g) => ({ ...g.keys, ...counts(g.members) }))
}

interface Link {
  readonly id: string
  readonly domain: string
  readonly slug: string
  readonly url: string
}

type Workspace = Awaited<ReturnType<typeof createWorkspace>>

/** A workspace with the links and visits above, and a count of the analytics questions asked of it. */
interface Scenario {
  readonly name: string
  readonly workspaceId: string
  readonly api: ReturnType<typeof apiClient>
  readonly host: string
  readonly customHost: string
  readonly links: Record<LinkKey, Link>
  readonly tags: { readonly t1: string; readonly t2: string; readonly unused: string }
  readonly folderId: string
  readonly expected: Array<Expected>
  used: number
}

describe("GET /v1/analytics over clicks sent through the engine (embedded npm start)", () => {
  let dns: Awaited<ReturnType<typeof startDnsServer>>
  let dir: string
  let clicksDir: string
  let ctl: ControlHandle
  let engine: string
  let duck: DuckDBConnection
  const scenarios: Array<Scenario> = []
  let pro: { id: string; api: ReturnType<typeof apiClient>; used: number }
  let business: { id: string; api: ReturnType<typeof apiClient>; used: number }
  let limited: ReturnType<typeof apiClient>
  let validation: ReturnType<typeof apiClient>
  let bots = 0

  const ok = <T>(res: { status: number; body: any }, status = 201): T => {
    expect(res.status, JSON.stringify(res.body)).toBe(status)
    return res.body as T
  }

  /**
   * `ricochet workspace create` does this through the running server's admin channel; the test
   * talks to that channel itself rather than start six CLI processes.
   */
  const provision = async (plan: Plan, name: string): Promise<Workspace> => {
    const viaServer = await sendAdminCommand(dir, { command: "workspace.create", name, plan })
    if (viaServer !== undefined && "result" in viaServer) return viaServer.result as Workspace
    return createWorkspace(ctl.env, plan, name)
  }

  const setUp = async (created: Workspace): Promise<Scenario> => {
    const api = apiClient(ctl.baseUrl, created.apiKey)
    const host = created.domain
    const customHost = `go.${created.workspace.slug}-stats.com`
    const t1 = ok<{ id: string }>(await api.post("/v1/tags", { name: "spring", color: "blue" })).id
    const t2 = ok<{ id: string }>(await api.post("/v1/tags", { name: "social", color: "pink" })).id
    const unused = ok<{ id: string }>(await api.post("/v1/tags", { name: "unused" })).id
    const folderId = ok<{ id: string }>(await api.post("/v1/folders", { name: "Campaigns" })).id
    const domain = ok<any>(await api.post("/v1/domains", { host: customHost }))
    const txt = domain.dnsRecords.find((r: any) => r.type === "TXT")
    dns.set(txt.name, { TXT: [txt.value] })
    dns.set(customHost, { CNAME: CNAME_TARGET })
    const verified = ok<any>(await api.post(`/v1/domains/${domain.id}/verify`), 200)
    expect(verified.verified, verified.reason).toBe(true)
    const link = async (input: Record<string, unknown>) => ok<Link>(await api.post("/v1/links", input))
    const links: Record<LinkKey, Link> = {
      alpha: await link({ url: "https://example.com/alpha", slug: "alpha", tagIds: [t1], folderId }),
      beta: await link({ url: "https://example.com/beta", slug: "beta", tagIds: [t2], utm: BETA_UTM }),
      gamma: await link({ url: "https://example.com/gamma", slug: "gamma", tagIds: [t1, t2], folderId, passQuery: true }),
      delta: await link({ url: "https://example.org/delta", slug: "delta", domain: customHost })
    }
    // The custom domain serves once the engine has heard of its verification (HEAD: never counted).
    await eventually(async () => (await visit(engine, customHost, "/delta", { method: "HEAD" })).status === 302, 5_000, 50)
    return { name: created.workspace.name, workspaceId: created.workspace.id, api, host, customHost, links, tags: { t1, t2, unused }, folderId, expected: [], used: 0 }
  }

  const sendVisits = async (s: Scenario) => {
    for (const spec of VISITS) {
      const link = s.links[spec.link]
      const headers: Record<string, string> = { "user-agent": UA[spec.ua] }
      if (spec.country !== undefined) headers["cf-ipcountry"] = spec.country
      if (spec.referer !== undefined) headers.referer = spec.referer
      if (spec.signed) headers["signature-agent"] = '"https://chatgpt.com"'
      const at = Date.now()
      const answer = await visit(engine, link.domain, `/${link.slug}${spec.query ? `?${spec.query}` : ""}`, { method: spec.head ? "HEAD" : "GET", headers })
      expect(answer.status, `${spec.link} ${spec.ua}`).toBe(302)
      const expected = expectedOf(spec, at)
      if (expected !== null) s.expected.push(expected)
      else if (!spec.head) bots++
    }
  }

  const status = async () => (await (await fetch(`${engine}/.well-known/ricochet/status`)).json()) as {
    clicks: { people: number; agent: number; bot: number }
    sink: { acknowledged: number; rolled: number }
  }

  beforeAll(async () => {
    dns = await startDnsServer()
    dir = await tempDir("ricochet-analytics-")
    clicksDir = path.join(dir, "clicks")
    duck = await openDuckDb(1)
    ctl = await startControl({
      RICOCHET_DATA_DIR: dir,
      DATABASE_URL: undefined,
      NATS_URL: undefined,
      RICOCHET_GEO_HEADER: "cf-ipcountry",
      RICOCHET_ROLL_SECONDS: "1",
      RICOCHET_COMPACT_SECONDS: "1",
      RICOCHET_COMPACT_SETTLE_SECONDS: "0",
      RICOCHET_LINK_SCHEME: "http",
      RICOCHET_DNS_SERVERS: dns.server,
      RICOCHET_CNAME_TARGET: CNAME_TARGET
    })
    engine = `http://127.0.0.1:${ctl.env.RICOCHET_ENGINE_PORT}`
    validation = apiClient(ctl.baseUrl, ctl.firstKey)
    const [s1, s2, s3, p, b, r] = await Promise.all([
      provision("pro", "Stats One"),
      provision("pro", "Stats Two"),
      provision("business", "Stats Three"),
      provision("pro", "History Pro"),
      provision("business", "History Business"),
      provision("pro", "Rate Limited")
    ])
    pro = { id: p.workspace.id, api: apiClient(ctl.baseUrl, p.apiKey), used: 0 }
    business = { id: b.workspace.id, api: apiClient(ctl.baseUrl, b.apiKey), used: 0 }
    limited = apiClient(ctl.baseUrl, r.apiKey)
    for (const created of [s1, s2, s3]) scenarios.push(await setUp(created))
    for (const s of scenarios) await sendVisits(s)

    // Every counted click has reached Parquet (the engine's own counters), bots were seen and dropped.
    const total = scenarios.reduce((n, s) => n + s.expected.length, 0)
    expect(total).toBe(3 * 19)
    await eventually(async () => {
      const now = await status()
      return now.clicks.people + now.clicks.agent === total && now.clicks.bot === bots && now.sink.rolled === total
    }, 15_000, 100)
    const settled = await status()
    expect(settled.sink).toEqual({ acknowledged: total, rolled: total, pending: 0, unrolled: 0 })
  }, 120_000)

  afterAll(async () => {
    await ctl?.stop()
    await dns?.close()
    duck?.closeSync()
    if (dir) await removeDir(dir)
  })

  /** The scenario workspace that has answered the fewest analytics questions. */
  const pick = () => [...scenarios].sort((a, b) => a.used - b.used)[0]

  const query = (params: Record<string, string | ReadonlyArray<string>>) => {
    const search = new URLSearchParams()
    for (const [key, value] of Object.entries(params)) for (const v of typeof value === "string" ? [value] : value) search.append(key, v)
    return `/v1/analytics?${search}`
  }

  /** Asks one analytics question; every answer carries the analytics allowance in its RateLimit headers. */
  const ask = async (who: { api: ReturnType<typeof apiClient>; used: number }, params: Record<string, string | ReadonlyArray<string>>) => {
    who.used++
    expect(who.used, "analytics questions asked of one workspace").toBeLessThanOrEqual(20)
    const res = await who.api.get(query(params))
    expect(res.status, `${query(params)}: ${JSON.stringify(res.body)}`).toBe(200)
    expect(res.headers.get("ratelimit-limit")).toBe("20")
    expect(Number(res.headers.get("ratelimit-remaining"))).toBeLessThan(20)
    const reset = Number(res.headers.get("ratelimit-reset"))
    expect(reset).toBeGreaterThanOrEqual(1)
    expect(reset).toBeLessThanOrEqual(60)
    expect(Object.keys(res.body)).toEqual(["start", "end", "data"])
    return res.body as { start: string; end: string; data: any }
  }

  /** Same rows, same order, and each row's fields in the documented order (docs/decisions.md#analytics). */
  const expectRows = (actual: Array<Row>, expected: Array<Row>) => {
    expect(actual).toEqual(expected)
    expect(actual.map((row) => Object.keys(row))).toEqual(expected.map((row) => Object.keys(row)))
  }

  const topLinks = (s: Scenario, list: ReadonlyArray<Expected>) => {
    const byId = new Map(Object.entries(s.links).map(([key, link]) => [link.id, key as LinkKey]))
    return breakdown(list, (e) => ({ linkId: s.links[e.link].id })).map((row) => {
      const link = s.links[byId.get(row.linkId as string)!]
      return {
        linkId: link.id,
        domain: link.domain,
        slug: link.slug,
        shortLink: `http://${link.domain}/${link.slug}`,
        url: link.url,
        clicks: row.clicks,
        people: row.people,
        agents: row.agents
      }
    })
  }

  describe("every groupBy", () => {
    it("count: clicks (people and agents together), people and agents, over the last 24 hours by default", async () => {
      const s = pick()
      const body = await ask(s, {})
      expect(body.data).toEqual(counts(s.expected))
      expect(Object.keys(body.data)).toEqual(["clicks", "people", "agents"])
      expect(body.data).toEqual({ clicks: 19, people: 14, agents: 5 })
      expect(Date.parse(body.end) - Date.parse(body.start)).toBe(DAY)
      expect(Math.abs(Date.parse(body.end) - Date.now())).toBeLessThan(10_000)
      expect(new Date(Date.parse(body.start)).toISOString()).toBe(body.start)
    })

    it.each([
      { interval: "24h", bucket: HOUR, buckets: 25 },
      { interval: "7d", bucket: DAY, buckets: 8 }
    ])("timeseries $interval: every bucket present, zeros included", async ({ interval, bucket, buckets }) => {
      const s = pick()
      const body = await ask(s, { groupBy: "timeseries", interval })
      const end = Date.parse(body.end)
      const first = Math.floor((end - (interval === "24h" ? DAY : 7 * DAY)) / bucket) * bucket
      const starts = Array.from({ length: buckets }, (_, i) => new Date(first + i * bucket).toISOString())
      expect(body.data.map((row: Row) => row.start)).toEqual(starts)
      for (const row of body.data) expect(Object.keys(row)).toEqual(["start", "clicks", "people", "agents"])
      const expected = starts.map((start) => ({
        start,
        ...counts(s.expected.filter((e) => Math.floor(e.at / bucket) * bucket === Date.parse(start)))
      }))
      // A visit sent just before a bucket boundary may be stamped just after it: then only the totals are exact.
      const straddles = s.expected.some((e) => Math.floor(e.at / bucket) !== Math.floor((e.at + 2_000) / bucket))
      if (straddles) {
        expect(body.data.reduce((n: number, row: Row) => n + (row.clicks as number), 0)).toBe(19)
      } else {
        expect(body.data).toEqual(expected)
      }
      expect(body.data.filter((row: Row) => row.clicks === 0).length).toBeGreaterThanOrEqual(buckets - 2)
    })

    const groupings: ReadonlyArray<readonly [string, (s: Scenario) => Array<Row>]> = [
      ["countries", (s) => breakdown(s.expected, (e) => ({ country: e.country }))],
      ["regions", (s) => breakdown(s.expected, (e) => ({ country: e.country, region: null }))],
      ["cities", (s) => breakdown(s.expected, (e) => ({ country: e.country, region: null, city: null }))],
      ["devices", (s) => breakdown(s.expected, (e) => ({ device: e.device }))],
      ["browsers", (s) => breakdown(s.expected, (e) => ({ browser: e.browser }))],
      ["os", (s) => breakdown(s.expected, (e) => ({ os: e.os }))],
      ["referers", (s) => breakdown(s.expected, (e) => ({ referer: e.referer }))],
      ["top_links", (s) => topLinks(s, s.expected)],
      ["utm_sources", (s) => breakdown(s.expected, (e) => ({ utmSource: e.utmSource }), (e) => e.utmSource === null)],
      ["utm_mediums", (s) => breakdown(s.expected, (e) => ({ utmMedium: e.utmMedium }), (e) => e.utmMedium === null)],
      ["utm_campaigns", (s) => breakdown(s.expected, (e) => ({ utmCampaign: e.utmCampaign }), (e) => e.utmCampaign === null)],
      ["utm_terms", (s) => breakdown(s.expected, (e) => ({ utmTerm: e.utmTerm }), (e) => e.utmTerm === null)],
      ["utm_contents", (s) => breakdown(s.expected, (e) => ({ utmContent: e.utmContent }), (e) => e.utmContent === null)]
    ]
    it.each(groupings)("%s", async (groupBy, expected) => {
      const s = pick()
      const body = await ask(s, { groupBy })
      expectRows(body.data, expected(s))
      expect(body.data.length).toBeGreaterThan(1)
    })

    it("spells out a few of the expected rows (the mix above, worked by hand)", async () => {
      const s = pick()
      expect(breakdown(s.expected, (e) => ({ country: e.country })).slice(0, 2)).toEqual([
        { country: "US", clicks: 8, people: 6, agents: 2 },
        { country: "DE", clicks: 4, people: 3, agents: 1 }
      ])
      expect(breakdown(s.expected, (e) => ({ referer: e.referer }))[0]).toEqual({ referer: "(direct)", clicks: 11, people: 8, agents: 3 })
      const devices = await ask(s, { groupBy: "devices" })
      expect(devices.data).toEqual([
        { device: "desktop", clicks: 7, people: 6, agents: 1 },
        { device: "mobile", clicks: 6, people: 6, agents: 0 },
        { device: "other", clicks: 4, people: 0, agents: 4 },
        { device: "tablet", clicks: 2, people: 2, agents: 0 }
      ])
    })
  })

  describe("every filter", () => {
    type Case = readonly [name: string, params: (s: Scenario) => Record<string, string | ReadonlyArray<string>>, keep: (e: Expected, s: Scenario) => boolean, expectedClicks: number]
    const cases: ReadonlyArray<Case> = [
      ["linkId", (s) => ({ linkId: s.links.alpha.id }), (e) => e.link === "alpha", 7],
      ["domain + slug", (s) => ({ domain: s.host, slug: "beta" }), (e) => e.link === "beta", 4],
      ["domain + slug on the custom domain", (s) => ({ domain: s.customHost, slug: "delta" }), (e) => e.link === "delta", 3],
      ["slug alone: on the workspace subdomain", () => ({ slug: "gamma" }), (e) => e.link === "gamma", 5],
      ["domain: the custom domain", (s) => ({ domain: s.customHost }), (e) => e.link === "delta", 3],
      ["domain: the subdomain", (s) => ({ domain: s.host }), (e) => e.link !== "delta", 16],
      ["folderId", (s) => ({ folderId: s.folderId }), (e) => e.link === "alpha" || e.link === "gamma", 12],
      ["tagIds: one tag", (s) => ({ tagIds: s.tags.t2 }), (e) => e.link === "beta" || e.link === "gamma", 9],
      ["tagIds: comma-separated means any", (s) => ({ tagIds: `${s.tags.t1},${s.tags.t2}` }), (e) => e.link !== "delta", 16],
      ["tagIds: repeated parameter", (s) => ({ tagIds: [s.tags.unused, s.tags.t1] }), (e) => e.link === "alpha" || e.link === "gamma", 12],
      ["tagIds: a tag without links", (s) => ({ tagIds: s.tags.unused }), () => false, 0],
      ["country: comma list", () => ({ country: "US,DE" }), (e) => e.country === "US" || e.country === "DE", 12],
      ["device", () => ({ device: "mobile,tablet" }), (e) => e.device === "mobile" || e.device === "tablet", 8],
      ["browser", () => ({ browser: "Safari" }), (e) => e.browser === "Safari", 5],
      ["os", () => ({ os: "iOS,Android" }), (e) => e.os === "iOS" || e.os === "Android", 8],
      ["referer: a host", () => ({ referer: "t.co" }), (e) => e.referer === "t.co", 2],
      ["referer: (direct) and a host", () => ({ referer: "(direct),www.google.com" }), (e) => e.referer === "(direct)" || e.referer === "www.google.com", 14],
      ["utmSource", () => ({ utmSource: "twitter" }), (e) => e.utmSource === "twitter", 3],
      ["utmMedium", () => ({ utmMedium: "email" }), (e) => e.utmMedium === "email", 4],
      ["utmCampaign: comma list", () => ({ utmCampaign: "spring,summer" }), (e) => e.utmCampaign === "spring" || e.utmCampaign === "summer", 5],
      ["audience=people", () => ({ audience: "people" }), (e) => e.audience === "people", 14],
      ["audience=agents", () => ({ audience: "agents" }), (e) => e.audience === "agent", 5],
      [
        "filters together are ANDed: folder, country, people",
        (s) => ({ folderId: s.folderId, country: "US", audience: "people" }),
        (e) => (e.link === "alpha" || e.link === "gamma") && e.country === "US" && e.audience === "people",
        3
      ]
    ]
    it.each(cases)("%s (count)", async (_, params, keep, clicks) => {
      const s = pick()
      const body = await ask(s, params(s))
      const expected = counts(s.expected.filter((e) => keep(e, s)))
      expect(expected.clicks).toBe(clicks)
      expect(body.data).toEqual(expected)
    })

    it("filters apply to breakdowns too (top_links of tag 1, agents only)", async () => {
      const s = pick()
      const body = await ask(s, { groupBy: "top_links", tagIds: s.tags.t1, audience: "agents" })
      expectRows(body.data, topLinks(s, s.expected.filter((e) => (e.link === "alpha" || e.link === "gamma") && e.audience === "agent")))
    })

    it("filters apply to timeseries (per-day, one link)", async () => {
      const s = pick()
      const body = await ask(s, { groupBy: "timeseries", interval: "30d", linkId: s.links.delta.id })
      expect(body.data).toHaveLength(31)
      expect(body.data.reduce((n: number, row: Row) => n + (row.clicks as number), 0)).toBe(3)
    })

    it.each([1, 2, 3])("limit=%i cuts a breakdown to its first rows", async (limit) => {
      const s = pick()
      const body = await ask(s, { groupBy: "countries", limit: String(limit) })
      expectRows(body.data, breakdown(s.expected, (e) => ({ country: e.country })).slice(0, limit))
    })
  })

  describe("validation: 422 with issues", () => {
    const cases: ReadonlyArray<readonly [string, (other: Scenario) => Record<string, string>, string]> = [
      ["unknown groupBy", () => ({ groupBy: "weekdays" }), "groupBy"],
      ["unknown interval", () => ({ interval: "2h" }), "interval"],
      ["unknown device", () => ({ device: "desktop,phone" }), "device"],
      ["bad country", () => ({ country: "USA" }), "country"],
      ["bad country in a list", () => ({ country: "US,1X" }), "country"],
      ["limit 0", () => ({ limit: "0" }), "limit"],
      ["limit 1001", () => ({ limit: "1001" }), "limit"],
      ["limit not a number", () => ({ limit: "ten" }), "limit"],
      ["unknown audience", () => ({ audience: "bots" }), "audience"],
      ["unknown linkId", () => ({ linkId: "lnk_nope" }), "linkId"],
      ["another workspace's linkId", (other) => ({ linkId: other.links.alpha.id }), "linkId"],
      ["unknown folderId", () => ({ folderId: "fld_nope" }), "folderId"],
      ["another workspace's tag", (other) => ({ tagIds: `${other.tags.t1}` }), "tagIds"],
      ["unknown domain", () => ({ domain: "nope.example.com" }), "domain"],
      ["another workspace's domain", (other) => ({ domain: other.customHost }), "domain"],
      ["unknown slug", () => ({ slug: "missing" }), "slug"]
    ]
    let used = 0
    it.each(cases)("%s", async (_, params, field) => {
      used++
      expect(used).toBeLessThanOrEqual(20)
      const res = await validation.get(query(params(scenarios[0])))
      expect(res.status, JSON.stringify(res.body)).toBe(422)
      expect(res.body.error.code).toBe("unprocessable_entity")
      expect(typeof res.body.error.message).toBe("string")
      expect(Array.isArray(res.body.error.issues)).toBe(true)
      expect(res.body.error.issues.length).toBeGreaterThan(0)
      for (const issue of res.body.error.issues) {
        expect(Array.isArray(issue.path)).toBe(true)
        expect(typeof issue.message).toBe("string")
        expect(typeof issue.code).toBe("string")
      }
      expect(res.body.error.issues.map((i: any) => i.path[0])).toContain(field)
      expect(res.headers.get("ratelimit-limit")).toBe("20")
    })
  })

  describe("plan history", () => {
    const YEAR = 365 * DAY
    const old = (workspaceId: string, timestamp: number, n: number): Array<ClickRecord> =>
      Array.from({ length: n }, (_, i) =>
        clickRecord({
          timestamp: timestamp + i * 1000,
          workspaceId,
          linkId: "lnk_historic",
          domain: "old.example.com",
          slug: "old",
          url: `https://example.com/old?i=${i}`,
          audience: i % 2 === 0 ? "people" : "agent",
          country: "NL",
          visitorHash: `old${i}`
        }))

    beforeAll(async () => {
      const now = Date.now()
      const groups = [
        old(pro.id, now - 4 * YEAR, 3),
        old(pro.id, now - 2 * YEAR, 5),
        old(business.id, now - 4 * YEAR, 2),
        old(business.id, now - 2 * YEAR, 4)
      ]
      for (const [i, clicks] of groups.entries()) {
        await writeClicksParquet(duck, clicks, path.join(clicksDir, partitionOf(clicks[0].timestamp).dir, `history-${i}.parquet`))
      }
    })

    it("pro (3 years): interval=all counts the 2-year-old clicks, not the 4-year-old ones, and starts now − 1095 days", async () => {
      const body = await ask(pro, { interval: "all" })
      expect(body.data).toEqual({ clicks: 5, people: 3, agents: 2 })
      expect(Date.parse(body.end) - Date.parse(body.start)).toBe(1095 * DAY)
      const year = await ask(pro, { interval: "1y" })
      expect(year.data).toEqual({ clicks: 0, people: 0, agents: 0 })
      expect(Date.parse(year.end) - Date.parse(year.start)).toBe(365 * DAY)
    })

    it("business (5 years): interval=all counts both, and starts now − 1825 days", async () => {
      const body = await ask(business, { interval: "all" })
      expect(body.data).toEqual({ clicks: 6, people: 3, agents: 3 })
      expect(Date.parse(body.end) - Date.parse(body.start)).toBe(1825 * DAY)
      const countries = await ask(business, { interval: "all", groupBy: "countries" })
      expect(countries.data).toEqual([{ country: "NL", clicks: 6, people: 3, agents: 3 }])
    })
  })

  describe("compaction changes no count", () => {
    it("the background job merges an hour of engine files; every answer stays the same", async ({ skip }) => {
      const now = Date.now()
      const hour = Math.floor(now / HOUR) * HOUR - 2 * HOUR
      const sentinelHour = hour - HOUR
      // The running control compacts on the real clock: from 00:00 to 03:00 UTC these hours belong to
      // a day that is over, which is merged whole into its day file (the unit tests cover that).
      if (sentinelHour < Math.floor(now / 86_400_000) * 86_400_000) skip("needs hours of a day still going (03:00-24:00 UTC)")
      const click = (i: number, fields: Partial<ClickRecord> = {}): ClickRecord =>
        clickRecord({
          timestamp: hour + ((i * 7919) % HOUR),
          workspaceId: pro.id,
          linkId: `lnk_raw_${i % 3}`,
          domain: "raw.example.com",
          slug: `raw${i % 3}`,
          url: `https://example.com/raw/${i % 3}?n=${i}`,
          audience: i % 4 === 0 ? "agent" : "people",
          country: ["US", "DE", "FR", null][i % 4],
          device: (["desktop", "mobile", "tablet"] as const)[i % 3],
          refererHost: i % 2 === 0 ? "t.co" : null,
          visitorHash: `raw${i}`,
          ...fields
        })
      // The engine files are written aside first, then moved in at once.
      const staging = path.join(dir, "staging")
      const all = Array.from({ length: 60 }, (_, i) => click(i))
      const parts = [["engine-a-1.parquet", all.slice(0, 25)], ["engine-b-7.parquet", all.slice(25, 45)], ["engine-a-2.parquet", all.slice(45)]] as const
      for (const [name, list] of parts) await writeClicksParquet(duck, list, path.join(staging, name))

      // A pass has just finished when the sentinel hour gets its manifest; the next starts a second
      // later, which leaves time to ask the first questions before compaction.
      const sentinelDir = path.join(clicksDir, partitionOf(sentinelHour).dir)
      await writeClicksParquet(duck, [click(0, { timestamp: sentinelHour, workspaceId: "ws_sentinel" })], path.join(sentinelDir, "a-1.parquet"))
      await writeClicksParquet(duck, [click(1, { timestamp: sentinelHour + 1, workspaceId: "ws_sentinel" })], path.join(sentinelDir, "b-1.parquet"))
      await eventually(async () => existsSync(path.join(sentinelDir, MANIFEST)), 10_000, 5)

      const hourDir = path.join(clicksDir, partitionOf(hour).dir)
      await mkdir(hourDir, { recursive: true })
      for (const [name] of parts) await rename(path.join(staging, name), path.join(hourDir, name))
      const questions = [{}, { groupBy: "countries" }, { groupBy: "top_links" }, { groupBy: "timeseries" }] as const
      const before = await Promise.all(questions.map((q) => ask(pro, q)))
      expect(existsSync(path.join(hourDir, MANIFEST)), "the first answers came before compaction").toBe(false)
      expect(before[0].data).toEqual({ clicks: 60, people: 45, agents: 15 })

      await eventually(async () => existsSync(path.join(hourDir, MANIFEST)), 15_000, 50)
      const files = await listClickFiles(clicksDir, hour, hour + HOUR - 1)
      expect(files.map((f) => path.basename(f))).toEqual([expect.stringMatching(/^merged-\d+\.parquet$/)])
      const after = await Promise.all(questions.map((q) => ask(pro, q)))
      // (Timeseries: the non-empty buckets, in case the hour turned between the two questions.)
      const comparable = (i: number, data: any) => (questions[i] as { groupBy?: string }).groupBy === "timeseries" ? data.filter((row: Row) => row.clicks !== 0) : data
      for (const [i, answer] of after.entries()) expect(comparable(i, answer.data), JSON.stringify(questions[i])).toEqual(comparable(i, before[i].data))
      expect(comparable(3, before[3].data)).toEqual([{ start: new Date(hour).toISOString(), clicks: 60, people: 45, agents: 15 }])
      expect(before[2].data.map((row: Row) => row.linkId)).toEqual(["lnk_raw_0", "lnk_raw_1", "lnk_raw_2"])
      expect(before[2].data[0]).toEqual({
        linkId: "lnk_raw_0",
        domain: "raw.example.com",
        slug: "raw0",
        shortLink: "http://raw.example.com/raw0",
        url: expect.stringMatching(/^https:\/\/example\.com\/raw\/0\?n=\d+$/),
        clicks: 20,
        people: 15,
        agents: 5
      })
    })
  })

  describe("the analytics allowance: 20 a minute per workspace, also counted in the general 300", () => {
    it("answers 20 with RateLimit headers counting down, the 21st with 429 and Retry-After", async () => {
      await roomInThisMinute(10)
      const remaining: Array<number> = []
      for (let i = 0; i < 20; i++) {
        const res = await limited.get("/v1/analytics?groupBy=count")
        expect(res.status, JSON.stringify(res.body)).toBe(200)
        expect(res.headers.get("ratelimit-limit")).toBe("20")
        remaining.push(Number(res.headers.get("ratelimit-remaining")))
        const reset = Number(res.headers.get("ratelimit-reset"))
        expect(reset).toBeGreaterThanOrEqual(1)
        expect(reset).toBeLessThanOrEqual(60)
      }
      expect(remaining).toEqual(Array.from({ length: 20 }, (_, i) => 19 - i))
      const over = await limited.get("/v1/analytics?groupBy=devices")
      expect(over.status).toBe(429)
      expect(over.body.error.code).toBe("rate_limit_exceeded")
      const retryAfter = Number(over.headers.get("retry-after"))
      expect(retryAfter).toBeGreaterThanOrEqual(1)
      expect(retryAfter).toBeLessThanOrEqual(60)
      expect(over.headers.get("ratelimit-limit")).toBe("20")
      expect(over.headers.get("ratelimit-remaining")).toBe("0")
      // Other endpoints still answer, from the general allowance, which counted all 21.
      const tags = await limited.get("/v1/tags")
      expect(tags.status).toBe(200)
      expect(tags.headers.get("ratelimit-limit")).toBe("300")
      expect(tags.headers.get("ratelimit-remaining")).toBe(String(300 - 22))
    })
  })

  describe("top_links of links changed and deleted since their clicks", () => {
    it("a link as it is now; a deleted link as its clicks recorded it", async () => {
      const created = await provision("pro", "Deleted Links")
      const api = apiClient(ctl.baseUrl, created.apiKey)
      const kept = ok<Link>(await api.post("/v1/links", { url: "https://example.com/kept-before", slug: "kept" }))
      const gone = ok<Link>(await api.post("/v1/links", { url: "https://example.com/gone", slug: "gone" }))
      const rolledBefore = (await status()).sink.rolled
      for (const [link, times] of [[kept, 2], [gone, 1]] as const) {
        for (let i = 0; i < times; i++) {
          expect((await visit(engine, link.domain, `/${link.slug}`, { headers: { "user-agent": UA.desktop } })).status).toBe(302)
        }
      }
      await eventually(async () => (await status()).sink.rolled >= rolledBefore + 3, 15_000, 100)
      ok(await api.patch(`/v1/links/${kept.id}`, { url: "https://example.com/kept-after" }), 200)
      expect((await api.delete(`/v1/links/${gone.id}`)).status).toBe(200)
      const who = { api, used: 0 }
      const body = await ask(who, { groupBy: "top_links" })
      expect(body.data.map((row: Row) => [row.linkId, row.domain, row.slug, row.url, row.clicks])).toEqual([
        [kept.id, kept.domain, "kept", "https://example.com/kept-after", 2],
        [gone.id, gone.domain, "gone", "https://example.com/gone", 1]
      ])
    })
  })
})
