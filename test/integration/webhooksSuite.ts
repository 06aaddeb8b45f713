import { createHmac } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  apiClient,
  type ControlHandle,
  createKey,
  createTestDatabase,
  createWorkspace,
  eventually,
  removeDir,
  startControl,
  tempDir,
  visit
} from "../support/processes.ts"
import postgresClient from "postgres"
import { FAILURES_TO_OPEN } from "../../control/webhooks/breaker.ts"
import { ENDPOINT_CAP, WORKSPACE_CAP } from "../../control/webhooks/fairClaim.ts"
import { parseIp } from "../../control/webhooks/ipAddress.ts"
import { startBlackHoles } from "../support/blackHoles.ts"
import { startDnsServer } from "../support/dnsServer.ts"
import { type Received, startReceiver } from "../support/webhookReceiver.ts"
import { sleep } from "../support/time.ts"

/**
 * Webhooks end to end, on PostgreSQL and on the embedded default: a receiver on loopback gets
 * link and click events signed per Standard Webhooks (verified here with our own HMAC), gets every
 * event in order after being down for a while, and a visit reaches it within 10 s (bots never).
 * One workspace's silent endpoints do not hold up another's deliveries; an endpoint that keeps
 * failing is backed off; a paused webhook's events wait for it (bounded); a name that resolves
 * to an address that is not public is refused when the delivery connects.
 */

/** Standard Webhooks verification, written from the convention rather than from control's code. */
const verifies = (secret: string, received: Received): boolean => {
  const id = received.headers["webhook-id"] as string
  const timestamp = received.headers["webhook-timestamp"] as string
  const signatures = String(received.headers["webhook-signature"]).split(" ")
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64")
  const expected = createHmac("sha256", key).update(`${id}.${timestamp}.${received.body}`).digest("base64")
  return signatures.some((s) => s === `v1,${expected}`) && Math.abs(Date.now() / 1000 - Number(timestamp)) < 300
}

const PEOPLE_UA = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.4; rv:125.0) Gecko/20100101 Firefox/125.0"
const BOT_UA = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"

const CNAME_TARGET = "cname.ricochet.test"
/** RICOCHET_WEBHOOK_BACKLOG here: pending deliveries kept per webhook. */
const BACKLOG = 10
/** How soon another workspace's delivery arrives while one workspace's endpoints never answer (minutes before the fair claim). */
const FAIR_DELIVERY_MS = 5_000

export const WEBHOOK_DATABASES = {
  postgres: { name: "PostgreSQL", postgres: true },
  embedded: { name: "embedded default", postgres: false }
} as const

/**
 * The suite on one database. Each database's run is a test file of its own (webhooks.test.ts,
 * webhooksEmbedded.test.ts): the suite waits on real deliveries for minutes, and two files run
 * side by side where one could not.
 */
export const describeWebhooks = ({ name, postgres }: (typeof WEBHOOK_DATABASES)[keyof typeof WEBHOOK_DATABASES]) =>
  describe(`webhooks (${name})`, () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined
  let dir: string
  let control: ControlHandle
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  let admin: ReturnType<typeof apiClient>
  let member: ReturnType<typeof apiClient>
  let engine: string
  let host: string
  let dns: Awaited<ReturnType<typeof startDnsServer>>

  const bodiesAt = (path: string) => receiver.received.filter((r) => r.path === path).map((r) => JSON.parse(r.body))

  beforeAll(async () => {
    receiver = await startReceiver()
    dns = await startDnsServer()
    db = postgres ? await createTestDatabase() : undefined
    dir = await tempDir("ricochet-webhooks-")
    control = await startControl({
      DATABASE_URL: db?.url,
      NATS_URL: undefined,
      RICOCHET_DATA_DIR: dir,
      RICOCHET_LINK_SCHEME: "http",
      RICOCHET_ROLL_SECONDS: "1",
      RICOCHET_WEBHOOKS_ALLOW_LOOPBACK: "true",
      RICOCHET_WEBHOOK_RETRY_BASE_SECONDS: "0.2",
      RICOCHET_WEBHOOK_BACKLOG: String(BACKLOG),
      RICOCHET_DNS_SERVERS: dns.server,
      RICOCHET_CNAME_TARGET: CNAME_TARGET,
      // A pending domain still wrong after about a second fails, so domain.failed is seen here.
      RICOCHET_DOMAIN_GRACE_HOURS: "0.0003",
      RICOCHET_DOMAIN_RECHECK_SECONDS: "3600"
    })
    engine = `http://127.0.0.1:${control.env.RICOCHET_ENGINE_PORT}`
    const workspace = await createWorkspace(control.env, "pro", "Hooks")
    host = workspace.domain
    admin = apiClient(control.baseUrl, workspace.apiKey)
    member = apiClient(control.baseUrl, (await createKey(control.env, workspace.workspace.id, "member")).apiKey)
  }, 180_000)

  afterAll(async () => {
    await control?.stop()
    await receiver?.close()
    await dns?.close()
    await db?.drop()
    await removeDir(dir)
  })

  it("is for admins: a member's key gets 403 forbidden on every webhook endpoint", async () => {
    for (const res of [
      await member.get("/v1/webhooks"),
      await member.post("/v1/webhooks", { url: receiver.url(), events: ["link.created"] }),
      await member.get("/v1/webhooks/wh_x"),
      await member.patch("/v1/webhooks/wh_x", { enabled: true }),
      await member.delete("/v1/webhooks/wh_x"),
      await member.get("/v1/webhooks/wh_x/deliveries")
    ]) {
      expect(res.status).toBe(403)
      expect(res.body.error.code).toBe("forbidden")
    }
  })

  it("answers bad input with 422 and unknown ids with 404, never a 500", async () => {
    const invalid: Array<[unknown, string]> = [
      [{ url: "ftp://example.com/h", events: ["link.created"] }, "url"],
      [{ url: "http://example.com/h", events: ["link.created"] }, "url"],
      [{ url: "https://10.1.2.3/h", events: ["link.created"] }, "url"],
      [{ url: "https://192.168.0.10/h", events: ["link.created"] }, "url"],
      [{ url: "https://[fd00::1]/h", events: ["link.created"] }, "url"],
      [{ url: "https://metadata.internal/h", events: ["link.created"] }, "url"],
      [{ url: "https://user:pw@example.com/h", events: ["link.created"] }, "url"],
      [{ url: "https://example.com/h", events: [] }, "events"],
      [{ url: "https://example.com/h", events: ["link.exploded"] }, "events"],
      [{ url: "https://example.com/h", events: ["link.created", "link.created"] }, "events"],
      [{ url: "https://example.com/h" }, "events"],
      [{ url: "https://example.com/h", events: ["link.created"], linkId: "lnk_nope" }, "linkId"],
      [{ url: "https://example.com/h", events: ["link.created"], domainId: "dom_nope" }, "domainId"],
      [{ url: "https://example.com/h", events: ["link.created"], secret: "mine" }, "secret"]
    ]
    for (const [payload, field] of invalid) {
      const res = await admin.post("/v1/webhooks", payload)
      expect(res.status, JSON.stringify(payload)).toBe(422)
      expect(res.body.error.code).toBe("unprocessable_entity")
      expect(res.body.error.issues[0].path[0], JSON.stringify(res.body)).toBe(field)
    }
    const created = await admin.post("/v1/webhooks", { url: "https://example.com/hooks", events: ["domain.verified"] })
    expect(created.status).toBe(201)
    expect((await admin.patch(`/v1/webhooks/${created.body.id}`, { url: "https://127.0.0.2.nip.io.local/h" })).status).toBe(422)
    expect((await admin.patch(`/v1/webhooks/${created.body.id}`, { enabled: "yes" })).status).toBe(422)
    expect((await admin.get(`/v1/webhooks/${created.body.id}/deliveries?limit=0`)).status).toBe(422)
    expect((await admin.get(`/v1/webhooks/${created.body.id}/deliveries?cursor=abc`)).status).toBe(422)
    expect((await admin.patch("/v1/webhooks/wh_missing", { enabled: true })).status).toBe(404)
    expect((await admin.get("/v1/webhooks/wh_missing/deliveries")).status).toBe(404)
    expect((await admin.delete(`/v1/webhooks/${created.body.id}`)).body).toEqual({ id: created.body.id })
    expect((await admin.get(`/v1/webhooks/${created.body.id}`)).status).toBe(404)
  })

  it("signs every delivery (Standard Webhooks), shows the secret once, and re-enables on PATCH", async () => {
    const created = await admin.post("/v1/webhooks", { url: receiver.url("/signed"), events: ["link.created", "link.updated", "link.deleted"] })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const secret: string = created.body.secret
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    const shown = await admin.get(`/v1/webhooks/${created.body.id}`)
    expect(shown.body).toEqual({ ...created.body, secret: undefined, updatedAt: shown.body.updatedAt })
    expect(JSON.stringify((await admin.get("/v1/webhooks")).body)).not.toContain(secret)

    const link = await admin.post("/v1/links", { url: "https://example.com/signed" })
    expect(link.status).toBe(201)
    await eventually(async () => receiver.received.some((r) => r.path === "/signed"), 10_000)
    const [first] = receiver.received.filter((r) => r.path === "/signed")
    expect(first.headers["webhook-id"]).toMatch(/^msg_/)
    expect(verifies(secret, first)).toBe(true)
    expect(verifies(secret, { ...first, body: first.body.replace("signed", "signet") })).toBe(false)
    // Another key: the secret's last base64 digit changed (to one that differs whatever it was).
    expect(verifies(secret.replace(/(.)=$/, (_, digit: string) => `${digit === "A" ? "E" : "A"}=`), first)).toBe(false)
    const body = JSON.parse(first.body)
    expect(body.type).toBe("link.created")
    expect(body.data.id).toBe(link.body.id)
    expect(body.data.shortLink).toBe(link.body.shortLink)

    const paused = await admin.patch(`/v1/webhooks/${created.body.id}`, { enabled: false })
    expect(paused.body.enabled).toBe(false)
    const resumed = await admin.patch(`/v1/webhooks/${created.body.id}`, { enabled: true })
    expect(resumed.body).toMatchObject({ enabled: true, disabledReason: null })

    expect((await admin.delete(`/v1/links/${link.body.id}`)).status).toBe(200)
    await eventually(async () => bodiesAt("/signed").some((b) => b.type === "link.deleted"), 10_000)
    for (const received of receiver.received.filter((r) => r.path === "/signed")) expect(verifies(secret, received)).toBe(true)
  })

  it("delivers every event, in order, to a receiver that was down for a while", async () => {
    const created = await admin.post("/v1/webhooks", { url: receiver.url("/outage"), events: ["link.created", "link.updated", "link.deleted"] })
    expect(created.status).toBe(201)
    await receiver.down()
    const link = await admin.post("/v1/links", { url: "https://example.com/outage", title: "v0" })
    for (let i = 1; i <= 4; i++) expect((await admin.patch(`/v1/links/${link.body.id}`, { title: `v${i}` })).status).toBe(200)
    expect((await admin.delete(`/v1/links/${link.body.id}`)).status).toBe(200)
    // The log shows the failing attempts and when the next one is due.
    await eventually(async () => {
      const log = await admin.get(`/v1/webhooks/${created.body.id}/deliveries`)
      return log.body.data.some((d: any) => d.attempts >= 2 && d.status === "pending" && d.error !== null && d.nextAttemptAt !== null)
    }, 10_000, 100)
    await receiver.up()
    await eventually(async () => bodiesAt("/outage").length >= 6, 30_000, 100)
    const bodies = bodiesAt("/outage")
    expect(bodies.map((b) => b.type)).toEqual(["link.created", "link.updated", "link.updated", "link.updated", "link.updated", "link.deleted"])
    expect(bodies.slice(0, 5).map((b) => b.data.title)).toEqual(["v0", "v1", "v2", "v3", "v4"])
    const log = await admin.get(`/v1/webhooks/${created.body.id}/deliveries?limit=100`)
    expect(log.status).toBe(200)
    expect(log.body.data).toHaveLength(6)
    for (const delivery of log.body.data) expect(delivery).toMatchObject({ status: "delivered", responseStatus: 200, responseExcerpt: "ok", nextAttemptAt: null })
    expect(new Set(log.body.data.map((d: any) => d.messageId)).size).toBe(6)
  }, 60_000)

  it("sends link.clicked within 10 s of a person's visit, and nothing for a bot's", async () => {
    const link = await admin.post("/v1/links", { url: "https://example.com/clicked", slug: "clicked" })
    expect(link.status).toBe(201)
    const created = await admin.post("/v1/webhooks", { url: receiver.url("/clicks"), events: ["link.clicked"], linkId: link.body.id })
    expect(created.status).toBe(201)
    expect((await visit(engine, host, "/clicked", { headers: { "user-agent": BOT_UA } })).status).toBe(302)
    const visitedAt = Date.now()
    expect((await visit(engine, host, "/clicked", { headers: { "user-agent": PEOPLE_UA } })).status).toBe(302)
    await eventually(async () => bodiesAt("/clicks").length > 0, 10_000, 50)
    const arrived = receiver.received.find((r) => r.path === "/clicks")!
    expect(arrived.at - visitedAt).toBeLessThan(10_000)
    expect(verifies(created.body.secret, arrived)).toBe(true)
    // The bot's visit came first: had it been counted it would be in this file or an earlier one.
    await sleep(2_500)
    const clicks = bodiesAt("/clicks").flatMap((b) => {
      expect(b.type).toBe("link.clicked")
      expect(b.data.link).toEqual({ id: link.body.id, domain: host, slug: "clicked" })
      return b.data.clicks
    })
    expect(clicks).toHaveLength(1)
    expect(clicks[0]).toMatchObject({ audience: "people", browser: "Firefox", url: "https://example.com/clicked" })
  }, 30_000)

  it("sends domain.verified and domain.failed when a custom domain's status changes, filtered by domain", async () => {
    const good = await admin.post("/v1/domains", { host: `go.hooks-${postgres ? "pg" : "emb"}.com` })
    const bad = await admin.post("/v1/domains", { host: `links.hooks-${postgres ? "pg" : "emb"}.com` })
    expect([good.status, bad.status]).toEqual([201, 201])
    const all = await admin.post("/v1/webhooks", { url: receiver.url("/domains"), events: ["domain.verified", "domain.failed"] })
    const onlyBad = await admin.post("/v1/webhooks", { url: receiver.url("/bad-domain"), events: ["domain.failed", "domain.verified"], domainId: bad.body.id })
    expect([all.status, onlyBad.status]).toEqual([201, 201])
    const txt = good.body.dnsRecords.find((r: any) => r.type === "TXT")
    dns.set(txt.name, { TXT: [txt.value] })
    dns.set(good.body.host, { CNAME: CNAME_TARGET })
    expect((await admin.post(`/v1/domains/${good.body.id}/verify`)).body.verified).toBe(true)
    await sleep(1_500)
    const failed = await admin.post(`/v1/domains/${bad.body.id}/verify`)
    expect(failed.body).toMatchObject({ verified: false, domain: { status: "failed" } })
    await eventually(async () => bodiesAt("/domains").length >= 2 && bodiesAt("/bad-domain").length >= 1, 10_000)
    expect(bodiesAt("/domains").map((b) => [b.type, b.data.host, b.data.status])).toEqual([
      ["domain.verified", good.body.host, "verified"],
      ["domain.failed", bad.body.host, "failed"]
    ])
    expect(bodiesAt("/bad-domain").map((b) => [b.type, b.data.id])).toEqual([["domain.failed", bad.body.id]])
    expect(typeof bodiesAt("/domains")[1].data.reason).toBe("string")
  }, 30_000)

  const newWorkspace = async (name: string) => {
    const created = await createWorkspace(control.env, "pro", `${name} ${postgres ? "pg" : "emb"}`)
    return { ...created, client: apiClient(control.baseUrl, created.apiKey) }
  }

  it(`delivers another workspace's event within ${FAIR_DELIVERY_MS / 1000} s while 20 endpoints of one workspace never answer`, async () => {
    const holes = await startBlackHoles(20)
    try {
      const silent = await newWorkspace("Silent")
      for (const url of holes.urls) expect((await silent.client.post("/v1/webhooks", { url, events: ["link.created"] })).status).toBe(201)
      for (let i = 0; i < 5; i++) expect((await silent.client.post("/v1/links", { url: `https://example.com/silent/${i}` })).status).toBe(201)
      // Its 100 deliveries are being sent: each waits out the 10 s timeout.
      await eventually(async () => holes.open() >= 8, 10_000, 50)

      const other = await newWorkspace("Other")
      expect((await other.client.post("/v1/webhooks", { url: receiver.url("/fair"), events: ["link.created"] })).status).toBe(201)
      const createdAt = Date.now()
      expect((await other.client.post("/v1/links", { url: "https://example.com/fair" })).status).toBe(201)
      await eventually(async () => receiver.received.some((r) => r.path === "/fair"), FAIR_DELIVERY_MS, 20)
      const waited = receiver.received.find((r) => r.path === "/fair")!.at - createdAt
      console.log(`another workspace's delivery arrived ${waited} ms after its change, with ${holes.open()} silent connections open`)
      expect(waited).toBeLessThan(FAIR_DELIVERY_MS)
      // The silent workspace held at most its share of the sending slots.
      expect(holes.maxOpenPerEndpoint()).toBeLessThanOrEqual(ENDPOINT_CAP)
      expect(holes.maxOpenTotal()).toBeLessThanOrEqual(WORKSPACE_CAP)
      for (const hook of (await silent.client.get("/v1/webhooks")).body.data) await silent.client.delete(`/v1/webhooks/${hook.id}`)
    } finally {
      await holes.close()
    }
  }, 60_000)

  it("backs off an endpoint that keeps failing (a probe now and then), then sends everything once it answers", async () => {
    const failing = await startReceiver()
    failing.respondWith(500)
    try {
      const workspace = await newWorkspace("Failing")
      expect((await workspace.client.post("/v1/webhooks", { url: failing.url("/down"), events: ["link.created"] })).status).toBe(201)
      for (let i = 0; i < 10; i++) expect((await workspace.client.post("/v1/links", { url: `https://example.com/down/${i}` })).status).toBe(201)
      await eventually(async () => failing.received.length > 0, 10_000)
      const first = failing.received[0].at
      await sleep(8_000)
      const attempts = failing.received.filter((r) => r.at - first <= 8_000).length
      console.log(`a failing endpoint with 10 due deliveries was tried ${attempts} times in 8 s`)
      // Without the breaker each of the 10 is retried after 0.2, 0.4, 0.8, 1.6 and 3.2 s: some 50 tries. With it:
      // the tries that open it and those under way then, and probes 1.2 and 3.6 s later (the cool-down doubles).
      expect(attempts).toBeLessThanOrEqual(FAILURES_TO_OPEN + ENDPOINT_CAP + 3)
      failing.respondWith(200)
      await eventually(async () => new Set(failing.received.filter((r) => r.status === 200).map((r) => r.headers["webhook-id"])).size >= 10, 40_000, 100)
    } finally {
      await failing.close()
    }
  }, 90_000)

  it("keeps the events of a paused webhook and sends them, in order, when it is enabled again", async () => {
    const workspace = await newWorkspace("Paused")
    const hook = await workspace.client.post("/v1/webhooks", { url: receiver.url("/paused"), events: ["link.created", "link.updated", "link.deleted"] })
    expect(hook.status).toBe(201)
    expect((await workspace.client.patch(`/v1/webhooks/${hook.body.id}`, { enabled: false })).body.enabled).toBe(false)
    const first = await workspace.client.post("/v1/links", { url: "https://example.com/paused-1", title: "v0" })
    const second = await workspace.client.post("/v1/links", { url: "https://example.com/paused-2", title: "w0" })
    for (let i = 1; i <= 3; i++) expect((await workspace.client.patch(`/v1/links/${first.body.id}`, { title: `v${i}` })).status).toBe(200)
    expect((await workspace.client.patch(`/v1/links/${second.body.id}`, { title: "w1" })).status).toBe(200)
    expect((await workspace.client.delete(`/v1/links/${first.body.id}`)).status).toBe(200)

    // Recorded while paused, not sent.
    await sleep(1_000)
    const waiting = await workspace.client.get(`/v1/webhooks/${hook.body.id}/deliveries?limit=100`)
    expect(waiting.body.data).toHaveLength(7)
    for (const delivery of waiting.body.data) expect(delivery).toMatchObject({ status: "pending", attempts: 0 })
    expect(bodiesAt("/paused")).toHaveLength(0)

    expect((await workspace.client.patch(`/v1/webhooks/${hook.body.id}`, { enabled: true })).body.enabled).toBe(true)
    await eventually(async () => bodiesAt("/paused").length >= 7, 15_000, 50)
    const ofLink = (id: string) => bodiesAt("/paused").filter((b) => b.data.id === id).map((b) => `${b.type} ${b.data.title ?? ""}`.trim())
    expect(ofLink(first.body.id)).toEqual(["link.created v0", "link.updated v1", "link.updated v2", "link.updated v3", "link.deleted"])
    expect(ofLink(second.body.id)).toEqual(["link.created w0", "link.updated w1"])
  }, 60_000)

  it(`keeps at most ${BACKLOG} waiting deliveries of a paused webhook: the oldest are dropped, and the log says so`, async () => {
    const workspace = await newWorkspace("Backlog")
    const hook = await workspace.client.post("/v1/webhooks", { url: receiver.url("/backlog"), events: ["link.created", "link.updated"] })
    expect((await workspace.client.patch(`/v1/webhooks/${hook.body.id}`, { enabled: false })).status).toBe(200)
    const link = await workspace.client.post("/v1/links", { url: "https://example.com/backlog", title: "t0" })
    for (let i = 1; i < BACKLOG + 5; i++) expect((await workspace.client.patch(`/v1/links/${link.body.id}`, { title: `t${i}` })).status).toBe(200)
    expect((await workspace.client.patch(`/v1/webhooks/${hook.body.id}`, { enabled: true })).status).toBe(200)
    await eventually(async () => bodiesAt("/backlog").length >= BACKLOG, 15_000, 50)
    await sleep(1_000)
    expect(bodiesAt("/backlog").map((b) => b.data.title)).toEqual(Array.from({ length: BACKLOG }, (_, i) => `t${i + 5}`))
    const log = (await workspace.client.get(`/v1/webhooks/${hook.body.id}/deliveries?limit=100`)).body.data
    expect(log).toHaveLength(BACKLOG + 5)
    const dropped = log.filter((d: any) => d.status === "failed")
    expect(dropped).toHaveLength(5)
    for (const delivery of dropped) expect(delivery).toMatchObject({ attempts: 0, error: expect.stringMatching(/^Dropped unsent: more than 10 deliveries/) })
  }, 60_000)

  it.runIf(postgres)("a webhook disabled after 3 days of failures keeps what happens meanwhile, and sends it in order once enabled", async () => {
    const failing = await startReceiver()
    failing.respondWith(500)
    const sql = postgresClient(db!.url, { max: 1, onnotice: () => {} })
    try {
      const workspace = await newWorkspace("Disabled")
      const hook = await workspace.client.post("/v1/webhooks", { url: failing.url("/auto"), events: ["link.created", "link.updated"] })
      // As if its failures began 4 days ago: the next failure disables it.
      await sql`UPDATE webhooks SET failing_since = now() - interval '4 days' WHERE id = ${hook.body.id}`
      const link = await workspace.client.post("/v1/links", { url: "https://example.com/auto", title: "a0" })
      await eventually(async () => (await workspace.client.get(`/v1/webhooks/${hook.body.id}`)).body.enabled === false, 10_000, 100)
      expect((await workspace.client.get(`/v1/webhooks/${hook.body.id}`)).body.disabledReason).toMatch(/3 days/)
      failing.respondWith(200)
      for (const title of ["a1", "a2"]) expect((await workspace.client.patch(`/v1/links/${link.body.id}`, { title })).status).toBe(200)
      await sleep(1_000)
      expect(failing.received.filter((r) => r.status === 200)).toHaveLength(0)
      expect((await workspace.client.patch(`/v1/webhooks/${hook.body.id}`, { enabled: true })).body).toMatchObject({ enabled: true, disabledReason: null })
      await eventually(async () => failing.received.filter((r) => r.status === 200).length >= 3, 15_000, 50)
      expect(failing.received.filter((r) => r.status === 200).map((r) => JSON.parse(r.body).data.title)).toEqual(["a0", "a1", "a2"])
    } finally {
      await sql.end()
      await failing.close()
    }
  }, 60_000)

  it("refuses, when a delivery connects, a name that resolves to an address that is not public", async () => {
    const names: Record<string, { A?: Array<string>; AAAA?: Array<string> }> = {
      "nat64.hooks.test": { AAAA: ["64:ff9b::a00:1"] },
      "compatible.hooks.test": { AAAA: ["::7f00:1"] },
      "sixtofour.hooks.test": { AAAA: ["2002:a00:1::1"] },
      "mapped.hooks.test": { AAAA: ["::ffff:a9fe:a9fe"] },
      "sitelocal.hooks.test": { AAAA: ["fec0::1"] },
      "relay.hooks.test": { A: ["192.88.99.1"] },
      "mixed.hooks.test": { A: ["8.8.8.8"], AAAA: ["fd00::1"] }
    }
    const workspace = await newWorkspace("Resolved")
    const hooks = new Map<string, string>()
    for (const [name, entry] of Object.entries(names)) {
      dns.set(name, entry)
      const hook = await workspace.client.post("/v1/webhooks", { url: `https://${name}/h`, events: ["link.created"] })
      expect(hook.status, JSON.stringify(hook.body)).toBe(201)
      hooks.set(name, hook.body.id)
    }
    expect((await workspace.client.post("/v1/links", { url: "https://example.com/resolved" })).status).toBe(201)
    for (const [name, entry] of Object.entries(names)) {
      const refused = [...(entry.A ?? []), ...(entry.AAAA ?? [])].find((address) => address !== "8.8.8.8")!
      await eventually(async () => {
        const log = await workspace.client.get(`/v1/webhooks/${hooks.get(name)}/deliveries`)
        return log.body.data[0]?.error !== null && log.body.data[0]?.error !== undefined
      }, 10_000, 100)
      const [delivery] = (await workspace.client.get(`/v1/webhooks/${hooks.get(name)}/deliveries`)).body.data
      // The resolver may write the address its own way (::7f00:1 as ::127.0.0.1): compared as addresses.
      const said = new RegExp(`^${name.replaceAll(".", "\\.")} resolves to (\\S+), not a public address: `).exec(delivery.error)
      expect(said, `${name}: ${delivery.error}`).not.toBeNull()
      expect(parseIp(said![1]), name).toEqual(parseIp(refused))
    }
  }, 60_000)
})
