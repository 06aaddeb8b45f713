import postgres from "postgres"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { FAILURES_BEFORE_FAILED } from "../../control/domains/verification.ts"
import { startDnsServer } from "../support/dnsServer.ts"
import {
  apiClient,
  type ControlHandle,
  createKey,
  createTestDatabase,
  createWorkspace,
  removeDir,
  startControl,
  tempDir
} from "../support/processes.ts"
import { sleep } from "../support/time.ts"

/**
 * Domains over HTTP against PostgreSQL, with verification over real DNS: a UDP server on loopback
 * answers from a table the tests edit (RICOCHET_DNS_SERVERS points the control process at it).
 *
 * Two control processes, each on its own database (so the short grace period of the second
 * never touches the first one's pending domains): the main one re-checks every second with the
 * default 72 h grace; the second has a grace of ≈ 1 s.
 *
 * Rate limits: 300 requests a minute per workspace, 30 per address without a valid key. The
 * polling tests run in workspaces of their own.
 */

const SHORT_DOMAIN = "rico.test"
const CNAME_TARGET = "cname.ricochet.test"
const A_TARGET = "203.0.113.7"

/** Every field of the spec's Domain, and nothing more. */
const DOMAIN_FIELDS = [
  "id", "host", "kind", "status", "primary", "verifiedAt", "rootRedirectUrl", "notFoundUrl", "expiredUrl", "dnsRecords",
  "createdAt", "updatedAt"
].sort()

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/

type Res = { status: number; headers: Headers; body: any }
type Api = ReturnType<typeof apiClient>
type OutboxRow = { topic: string; payload: any }
const challenge = (host: string) => `_ricochet-challenge.${host}`

/** `{ error: { code, message, issues? } }` with the given status and code (and an issue at `path`). */
const expectError = (res: Res, status: number, code: string, issuePath?: ReadonlyArray<string | number>) => {
  expect({ status: res.status, code: res.body?.error?.code }, JSON.stringify(res.body)).toEqual({ status, code })
  expect(Object.keys(res.body)).toEqual(["error"])
  expect(typeof res.body.error.message).toBe("string")
  if (issuePath !== undefined) {
    expect(res.body.error.issues, JSON.stringify(res.body.error)).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: issuePath })])
    )
  }
}

/** A Domain as the spec describes it: exactly its fields, with the right types. */
const expectDomainShape = (domain: any) => {
  expect(Object.keys(domain).sort()).toEqual(DOMAIN_FIELDS)
  expect(typeof domain.id).toBe("string")
  expect(typeof domain.host).toBe("string")
  expect(["subdomain", "custom"]).toContain(domain.kind)
  expect(["pending", "verified", "failed"]).toContain(domain.status)
  expect(typeof domain.primary).toBe("boolean")
  if (domain.verifiedAt !== null) expect(domain.verifiedAt).toMatch(ISO)
  for (const field of ["rootRedirectUrl", "notFoundUrl", "expiredUrl"]) {
    expect(domain[field] === null || typeof domain[field] === "string").toBe(true)
  }
  expect(Array.isArray(domain.dnsRecords)).toBe(true)
  for (const record of domain.dnsRecords) {
    expect(Object.keys(record).sort()).toEqual(["name", "type", "value"])
  }
  expect(domain.createdAt).toMatch(ISO)
  expect(domain.updatedAt).toMatch(ISO)
}

/** Polls GET /v1/domains/{id} until the status is reached; returns the domain and the time it took. */
const waitForStatus = async (api: Api, id: string, status: string, timeoutMs = 20_000) => {
  const started = Date.now()
  let last: any
  while (Date.now() - started < timeoutMs) {
    const res = await api.get(`/v1/domains/${id}`)
    expect(res.status).toBe(200)
    last = res.body
    if (last.status === status) return { domain: last, elapsedMs: Date.now() - started }
    await sleep(300)
  }
  throw new Error(`domain ${id} did not become ${status} within ${timeoutMs} ms; last: ${JSON.stringify(last)}`)
}

describe("domains over PostgreSQL with real DNS", () => {
  let dns: Awaited<ReturnType<typeof startDnsServer>>
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let graceDb: Awaited<ReturnType<typeof createTestDatabase>>
  let ctl: ControlHandle
  let graceCtl: ControlHandle
  const dirs: Array<string> = []
  let sql: postgres.Sql

  /** W1: the main workspace (business, for room in the custom-domain limit); W2: another one. */
  let W1: { id: string; key: string; domain: string }
  let W2: { id: string; key: string; domain: string }
  let api1: Api
  let api2: Api
  let apiMember: Api
  /** A workspace of its own for the background re-check (polling). */
  let apiAuto: Api
  /** A workspace on the second process (short grace). */
  let apiGrace: Api

  /** Custom domains of W1 used across tests. */
  let goDomain: any
  let apexDomain: any

  const outbox = (): Promise<Array<OutboxRow>> => sql<Array<OutboxRow>>`SELECT topic, payload FROM outbox ORDER BY id`
  const domainEvents = async (id: string) =>
    (await outbox()).filter((r) => r.topic === "ricochet.changes.domain.upserted" && r.payload?.domain?.id === id)

  beforeAll(async () => {
    dns = await startDnsServer()
    ;[db, graceDb] = await Promise.all([createTestDatabase(), createTestDatabase()])
    const [dir, graceDir] = await Promise.all([tempDir(), tempDir()])
    dirs.push(dir, graceDir)
    const common = {
      RICOCHET_SHORT_DOMAIN: SHORT_DOMAIN,
      RICOCHET_LINK_SCHEME: "https",
      NATS_URL: undefined,
      RICOCHET_DNS_SERVERS: dns.server,
      RICOCHET_CNAME_TARGET: CNAME_TARGET,
      RICOCHET_A_TARGET: A_TARGET,
      RICOCHET_DOMAIN_RECHECK_SECONDS: "1"
    }
    ;[ctl, graceCtl] = await Promise.all([
      startControl({ ...common, DATABASE_URL: db.url, RICOCHET_DATA_DIR: dir, RICOCHET_DOMAIN_GRACE_HOURS: "72" }, true),
      startControl({ ...common, DATABASE_URL: graceDb.url, RICOCHET_DATA_DIR: graceDir, RICOCHET_DOMAIN_GRACE_HOURS: "0.0003" }, true)
    ])
    const [w1, w2, auto, grace] = await Promise.all([
      createWorkspace(ctl.env, "business", "Acme One"),
      createWorkspace(ctl.env, "pro", "Acme Two"),
      createWorkspace(ctl.env, "pro", "Auto check"),
      createWorkspace(graceCtl.env, "pro", "Grace")
    ])
    W1 = { id: w1.workspace.id, key: w1.apiKey, domain: w1.domain }
    W2 = { id: w2.workspace.id, key: w2.apiKey, domain: w2.domain }
    const member = await createKey(ctl.env, W1.id, "member")
    expect(member.role).toBe("member")
    api1 = apiClient(ctl.baseUrl, W1.key)
    api2 = apiClient(ctl.baseUrl, W2.key)
    apiMember = apiClient(ctl.baseUrl, member.apiKey)
    apiAuto = apiClient(ctl.baseUrl, auto.apiKey)
    apiGrace = apiClient(graceCtl.baseUrl, grace.apiKey)
    sql = postgres(db.url, { max: 2, onnotice: () => {} })
  })

  afterAll(async () => {
    await sql?.end({ timeout: 5 })
    await Promise.all([ctl?.stop(), graceCtl?.stop()])
    await dns?.close()
    await Promise.all([db?.drop(), graceDb?.drop()])
    await Promise.all(dirs.map(removeDir))
  })

  it("lists the workspace subdomain: verified, primary, no DNS records, exactly the spec's fields", async () => {
    const res = await api1.get("/v1/domains")
    expect(res.status).toBe(200)
    expect(Object.keys(res.body)).toEqual(["data"])
    expect(res.body.data).toHaveLength(1)
    const [sub] = res.body.data
    expectDomainShape(sub)
    expect(sub).toMatchObject({
      host: W1.domain,
      kind: "subdomain",
      status: "verified",
      primary: true,
      rootRedirectUrl: null,
      notFoundUrl: null,
      expiredUrl: null,
      dnsRecords: []
    })
    expect(W1.domain.endsWith(`.${SHORT_DOMAIN}`)).toBe(true)
    expect(sub.verifiedAt).toMatch(ISO)
    const one = await api1.get(`/v1/domains/${sub.id}`)
    expect(one.status).toBe(200)
    expect(one.body).toEqual(sub)
    // Verifying the subdomain is harmless: always verified.
    const verify = await api1.post(`/v1/domains/${sub.id}/verify`)
    expect(verify.status).toBe(200)
    expect(Object.keys(verify.body).sort()).toEqual(["domain", "reason", "verified"])
    expect(verify.body.verified).toBe(true)
    expect(verify.body.domain).toEqual(sub)
  })

  it("POST adds a pending custom domain with the DNS records to publish (host normalised)", async () => {
    const res = await api1.post("/v1/domains", { host: "Go.Acme-One.COM" })
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    goDomain = res.body
    expectDomainShape(goDomain)
    expect(goDomain).toMatchObject({
      host: "go.acme-one.com",
      kind: "custom",
      status: "pending",
      primary: false,
      verifiedAt: null,
      rootRedirectUrl: null,
      notFoundUrl: null,
      expiredUrl: null
    })
    expect(goDomain.dnsRecords).toEqual([
      { type: "TXT", name: "_ricochet-challenge.go.acme-one.com", value: expect.any(String) },
      { type: "CNAME", name: "go.acme-one.com", value: CNAME_TARGET }
    ])
    expect(goDomain.dnsRecords[0].value.length).toBeGreaterThanOrEqual(16)

    const list = await api1.get("/v1/domains")
    expect(list.body.data.map((d: any) => d.host)).toEqual([W1.domain, "go.acme-one.com"])
    const one = await api1.get(`/v1/domains/${goDomain.id}`)
    expect(one.status).toBe(200)
    expect({ ...one.body, status: "pending" }).toEqual(goDomain)

    const events = await domainEvents(goDomain.id)
    expect(events.length).toBeGreaterThanOrEqual(1)
    expect(events[0].payload).toMatchObject({ type: "domain.upserted", domain: { id: goDomain.id, host: "go.acme-one.com", status: "pending" } })
  })

  it("an apex host is pointed with an A record to RICOCHET_A_TARGET; each domain has its own token", async () => {
    const res = await api1.post("/v1/domains", { host: "acme-apex.com." })
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    apexDomain = res.body
    expectDomainShape(apexDomain)
    expect(apexDomain.host).toBe("acme-apex.com")
    expect(apexDomain.dnsRecords).toEqual([
      { type: "TXT", name: "_ricochet-challenge.acme-apex.com", value: expect.any(String) },
      { type: "A", name: "acme-apex.com", value: A_TARGET }
    ])
    expect(apexDomain.dnsRecords[0].value).not.toBe(goDomain.dnsRecords[0].value)
  })

  it("rejects invalid hosts with 422 at [\"host\"], and unknown fields", async () => {
    for (const host of [
      "https://go.example.com",
      "go.example.com/path",
      "go.example.com:8080",
      "127.0.0.1",
      "[::1]",
      "localhost",
      "-bad.example.com",
      `${"a".repeat(64)}.example.com`,
      "co.uk",
      `acme.${SHORT_DOMAIN}`,
      SHORT_DOMAIN,
      W1.domain,
      ""
    ]) {
      const res = await api1.post("/v1/domains", { host })
      expectError(res, 422, "unprocessable_entity", ["host"])
    }
    expectError(await api1.post("/v1/domains", {}), 422, "unprocessable_entity", ["host"])
    expectError(await api1.post("/v1/domains", { host: 42 }), 422, "unprocessable_entity", ["host"])
    expectError(await api1.post("/v1/domains", { host: "extra.acme-one.com", primary: true }), 422, "unprocessable_entity")
    const list = await api1.get("/v1/domains")
    expect(list.body.data.map((d: any) => d.host)).not.toContain("extra.acme-one.com")
  })

  it("a host can be registered only once, across workspaces (409 conflict)", async () => {
    expectError(await api1.post("/v1/domains", { host: "go.acme-one.com" }), 409, "conflict")
    expectError(await api1.post("/v1/domains", { host: "GO.ACME-ONE.COM." }), 409, "conflict")
    expectError(await api2.post("/v1/domains", { host: "go.acme-one.com" }), 409, "conflict")
    expect((await api2.get("/v1/domains")).body.data).toHaveLength(1)
  })

  it("a member's key reads and verifies, but cannot add, change or remove (403)", async () => {
    expectError(await apiMember.post("/v1/domains", { host: "member.acme-one.com" }), 403, "forbidden")
    expectError(await apiMember.patch(`/v1/domains/${goDomain.id}`, { rootRedirectUrl: "https://acme.example/" }), 403, "forbidden")
    expectError(await apiMember.delete(`/v1/domains/${goDomain.id}`), 403, "forbidden")
    const list = await apiMember.get("/v1/domains")
    expect(list.status).toBe(200)
    expect(list.body.data.map((d: any) => d.id)).toEqual(expect.arrayContaining([goDomain.id, apexDomain.id]))
    const one = await apiMember.get(`/v1/domains/${goDomain.id}`)
    expect(one.status).toBe(200)
    expect(one.body.rootRedirectUrl).toBeNull()
    const verify = await apiMember.post(`/v1/domains/${goDomain.id}/verify`)
    expect(verify.status, JSON.stringify(verify.body)).toBe(200)
    expect(verify.body.verified).toBe(false)
    expect(verify.body.domain.id).toBe(goDomain.id)
    expect(verify.body.domain.status).toBe("pending")
    expect((await api1.get("/v1/domains")).body.data.map((d: any) => d.host)).not.toContain("member.acme-one.com")
  })

  it("verify over real DNS: reasons for wrong records, verified, kept through blips, failed, recovered", async () => {
    const host = "verify.acme-one.com"
    const created = await api1.post("/v1/domains", { host })
    expect(created.status).toBe(201)
    const id = created.body.id
    const token = created.body.dnsRecords[0].value

    // Nothing published.
    let res = await api1.post(`/v1/domains/${id}/verify`)
    expect(res.status).toBe(200)
    expect(Object.keys(res.body).sort()).toEqual(["domain", "reason", "verified"])
    expectDomainShape(res.body.domain)
    expect(res.body.verified).toBe(false)
    expect(res.body.reason).toContain(challenge(host))
    expect(res.body.reason).toMatch(/TXT/)
    expect(res.body.domain.status).toBe("pending")

    // Wrong token, right CNAME.
    dns.set(challenge(host), { TXT: ["ricochet-verify=not-the-token"] })
    dns.set(host, { CNAME: CNAME_TARGET })
    res = await api1.post(`/v1/domains/${id}/verify`)
    expect(res.body.verified).toBe(false)
    expect(res.body.reason).toMatch(/token/)
    expect(res.body.reason).toContain(challenge(host))
    expect(res.body.reason).not.toMatch(/CNAME/)
    expect(res.body.domain.status).toBe("pending")

    // Right token, wrong CNAME.
    dns.set(challenge(host), { TXT: [token] })
    dns.set(host, { CNAME: "elsewhere.example.net" })
    res = await api1.post(`/v1/domains/${id}/verify`)
    expect(res.body.verified).toBe(false)
    expect(res.body.reason).toContain("elsewhere.example.net")
    expect(res.body.reason).toContain(CNAME_TARGET)
    expect(res.body.reason).not.toMatch(/TXT/)
    expect(res.body.domain.status).toBe("pending")
    expect(res.body.domain.verifiedAt).toBeNull()

    // Right records (the token among other TXT values).
    dns.set(challenge(host), { TXT: ["something-else", token] })
    dns.set(host, { CNAME: CNAME_TARGET })
    res = await api1.post(`/v1/domains/${id}/verify`)
    expect(res.body.verified, res.body.reason).toBe(true)
    expect(typeof res.body.reason).toBe("string")
    expect(res.body.domain.status).toBe("verified")
    expect(res.body.domain.verifiedAt).toMatch(ISO)
    const firstVerifiedAt = res.body.domain.verifiedAt
    expect((await api1.get(`/v1/domains/${id}`)).body.status).toBe("verified")
    expect((await domainEvents(id)).map((e) => e.payload.domain.status)).toContain("verified")

    // Checked again while right: verifiedAt is kept. (The pause lets a background check that was
    // already under way finish; the verify call pushes the next one a full second out.)
    await sleep(150)
    res = await api1.post(`/v1/domains/${id}/verify`)
    expect(res.body.verified).toBe(true)
    expect(res.body.domain.verifiedAt).toBe(firstVerifiedAt)

    // Records removed: stays verified through the first failed checks, then failed.
    dns.remove(challenge(host))
    dns.remove(host)
    for (let i = 1; i <= FAILURES_BEFORE_FAILED; i++) {
      res = await api1.post(`/v1/domains/${id}/verify`)
      expect(res.body.verified).toBe(false)
      expect(res.body.reason).toContain(challenge(host))
      expect(res.body.domain.status, `after ${i} failed checks`).toBe(i < FAILURES_BEFORE_FAILED ? "verified" : "failed")
      if (i < FAILURES_BEFORE_FAILED) expect(res.body.domain.verifiedAt).toBe(firstVerifiedAt)
    }
    expect((await api1.get(`/v1/domains/${id}`)).body.status).toBe("failed")
    expect((await domainEvents(id)).map((e) => e.payload.domain.status)).toContain("failed")

    // Fixed: recovers at once, with a new verifiedAt.
    dns.set(challenge(host), { TXT: [token] })
    dns.set(host, { CNAME: CNAME_TARGET })
    res = await api1.post(`/v1/domains/${id}/verify`)
    expect(res.body.verified, res.body.reason).toBe(true)
    expect(res.body.domain.status).toBe("verified")
    expect(Date.parse(res.body.domain.verifiedAt)).toBeGreaterThan(Date.parse(firstVerifiedAt))
    expect((await domainEvents(id)).map((e) => e.payload.domain.status)).toEqual(["pending", "verified", "failed", "verified"])
  })

  it("verify: an apex by TXT + A, and a flattened CNAME (host A = target A)", async () => {
    const apex = apexDomain.host
    dns.set(challenge(apex), { TXT: [apexDomain.dnsRecords[0].value] })
    dns.set(apex, { A: ["192.0.2.55"] })
    let res = await api1.post(`/v1/domains/${apexDomain.id}/verify`)
    expect(res.body.verified).toBe(false)
    expect(res.body.reason).toContain("192.0.2.55")
    expect(res.body.reason).toContain(A_TARGET)
    dns.set(apex, { A: [A_TARGET] })
    res = await api1.post(`/v1/domains/${apexDomain.id}/verify`)
    expect(res.body.verified, res.body.reason).toBe(true)
    expect(res.body.domain.status).toBe("verified")

    const created = await api1.post("/v1/domains", { host: "flat.acme-one.com" })
    expect(created.status).toBe(201)
    dns.set(CNAME_TARGET, { A: ["198.51.100.10", "198.51.100.11"] })
    dns.set(challenge("flat.acme-one.com"), { TXT: [created.body.dnsRecords[0].value] })
    dns.set("flat.acme-one.com", { A: ["198.51.100.99"] })
    res = await api1.post(`/v1/domains/${created.body.id}/verify`)
    expect(res.body.verified).toBe(false)
    expect(res.body.reason).toContain(CNAME_TARGET)
    dns.set("flat.acme-one.com", { A: ["198.51.100.11", "198.51.100.10"] })
    res = await api1.post(`/v1/domains/${created.body.id}/verify`)
    expect(res.body.verified, res.body.reason).toBe(true)
    expect(res.body.domain.status).toBe("verified")
  })

  it("the background job verifies a pending domain once its records are published (no verify call)", async () => {
    const host = "auto.acme-three.com"
    const created = await apiAuto.post("/v1/domains", { host })
    expect(created.status).toBe(201)
    expect(created.body.status).toBe("pending")
    // Let the job see it wrong first: it stays pending (72 h grace).
    await sleep(1_500)
    expect((await apiAuto.get(`/v1/domains/${created.body.id}`)).body.status).toBe("pending")
    dns.set(challenge(host), { TXT: [created.body.dnsRecords[0].value] })
    dns.set(host, { CNAME: CNAME_TARGET })
    const { domain, elapsedMs } = await waitForStatus(apiAuto, created.body.id, "verified")
    expect(domain.verifiedAt).toMatch(ISO)
    expect(elapsedMs).toBeLessThan(10_000)
    expect((await domainEvents(created.body.id)).map((e) => e.payload.domain.status)).toEqual(["pending", "verified"])
  })

  it("with a short grace period, the background job fails a pending domain that is still wrong; it recovers", async () => {
    const host = "grace.acme-four.com"
    const created = await apiGrace.post("/v1/domains", { host })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    expect(created.body.status).toBe("pending")
    dns.set(challenge(host), { TXT: ["ricochet-verify=wrong"] })
    dns.set(host, { CNAME: CNAME_TARGET })
    const { domain } = await waitForStatus(apiGrace, created.body.id, "failed")
    expect(domain.verifiedAt).toBeNull()
    const res = await apiGrace.post(`/v1/domains/${created.body.id}/verify`)
    expect(res.body.verified).toBe(false)
    expect(res.body.reason).toMatch(/token/)
    expect(res.body.domain.status).toBe("failed")

    dns.set(challenge(host), { TXT: [created.body.dnsRecords[0].value] })
    const recovered = await waitForStatus(apiGrace, created.body.id, "verified")
    expect(recovered.domain.verifiedAt).toMatch(ISO)
  })

  it("PATCH sets and clears fallback destinations; only the fields sent change", async () => {
    const path = `/v1/domains/${goDomain.id}`
    const before = (await api1.get(path)).body
    let res = await api1.patch(path, { rootRedirectUrl: "https://acme.example/home" })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expectDomainShape(res.body)
    expect(res.body).toMatchObject({ rootRedirectUrl: "https://acme.example/home", notFoundUrl: null, expiredUrl: null })
    expect(res.body.host).toBe(before.host)
    expect(res.body.status).toBe(before.status)
    expect(Date.parse(res.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(before.updatedAt))

    res = await api1.patch(path, { notFoundUrl: "https://acme.example/404", expiredUrl: "http://acme.example/expired" })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      rootRedirectUrl: "https://acme.example/home",
      notFoundUrl: "https://acme.example/404",
      expiredUrl: "http://acme.example/expired"
    })

    res = await api1.patch(path, { rootRedirectUrl: null })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ rootRedirectUrl: null, notFoundUrl: "https://acme.example/404", expiredUrl: "http://acme.example/expired" })

    res = await api1.patch(path, {})
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ rootRedirectUrl: null, notFoundUrl: "https://acme.example/404" })

    expectError(await api1.patch(path, { notFoundUrl: "not a url" }), 422, "unprocessable_entity", ["notFoundUrl"])
    expectError(await api1.patch(path, { rootRedirectUrl: "javascript:alert(1)" }), 422, "unprocessable_entity", ["rootRedirectUrl"])
    expectError(await api1.patch(path, { expiredUrl: 42 }), 422, "unprocessable_entity", ["expiredUrl"])
    expectError(await api1.patch(path, { host: "other.acme-one.com" }), 422, "unprocessable_entity")
    expectError(await api1.patch(path, { status: "verified" }), 422, "unprocessable_entity")
    expectError(await api1.patch("/v1/domains/dom_doesnotexist", { notFoundUrl: null }), 404, "not_found")

    const after = (await api1.get(path)).body
    expect(after).toMatchObject({ host: "go.acme-one.com", rootRedirectUrl: null, notFoundUrl: "https://acme.example/404", expiredUrl: "http://acme.example/expired" })

    const events = await domainEvents(goDomain.id)
    expect(events.some((e) => e.payload.domain.rootRedirectUrl === "https://acme.example/home")).toBe(true)
    expect(events.at(-1)!.payload.domain).toMatchObject({ rootRedirectUrl: null, notFoundUrl: "https://acme.example/404" })

    // The workspace subdomain has fallbacks too.
    const sub = (await api1.get("/v1/domains")).body.data.find((d: any) => d.kind === "subdomain")
    res = await api1.patch(`/v1/domains/${sub.id}`, { notFoundUrl: "https://acme.example/missing" })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ kind: "subdomain", status: "verified", primary: true, notFoundUrl: "https://acme.example/missing", rootRedirectUrl: null })
    expect((await api1.get(`/v1/domains/${sub.id}`)).body.notFoundUrl).toBe("https://acme.example/missing")
    res = await api1.patch(`/v1/domains/${sub.id}`, { notFoundUrl: null })
    expect(res.body.notFoundUrl).toBeNull()
    expect((await domainEvents(sub.id)).at(-1)!.payload.domain.notFoundUrl).toBeNull()
  })

  it("links go to the primary domain unless they name one of the workspace's domains", async () => {
    let res = await api1.post("/v1/links", { url: "https://example.com/a" })
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    expect(res.body.domain).toBe(W1.domain)
    expect(res.body.shortLink).toBe(`https://${W1.domain}/${res.body.slug}`)

    res = await api1.post("/v1/links", { url: "https://example.com/b", domain: "go.acme-one.com", slug: "promo" })
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    expect(res.body.domain).toBe("go.acme-one.com")
    expect(res.body.shortLink).toBe("https://go.acme-one.com/promo")
    // The same slug is free on another domain.
    res = await api1.post("/v1/links", { url: "https://example.com/c", slug: "promo" })
    expect(res.status).toBe(201)
    expect(res.body.domain).toBe(W1.domain)

    const w2Domain = await api2.post("/v1/domains", { host: "w2.acme-two.com" })
    expect(w2Domain.status).toBe(201)
    expectError(await api1.post("/v1/links", { url: "https://example.com/d", domain: "w2.acme-two.com" }), 422, "unprocessable_entity", ["domain"])
    expectError(await api1.post("/v1/links", { url: "https://example.com/d", domain: W2.domain }), 422, "unprocessable_entity", ["domain"])
    expectError(await api1.post("/v1/links", { url: "https://example.com/d", domain: "nowhere.example.org" }), 422, "unprocessable_entity", ["domain"])
  })

  it("DELETE removes a custom domain and every link on it, announcing each removal; the subdomain stays", async () => {
    const host = "doomed.acme-one.com"
    const created = await api1.post("/v1/domains", { host })
    expect(created.status).toBe(201)
    const id = created.body.id
    const doomedLinks: Array<{ id: string; slug: string }> = []
    for (const n of [1, 2, 3]) {
      const res = await api1.post("/v1/links", { url: `https://example.com/doomed/${n}`, domain: host })
      expect(res.status, JSON.stringify(res.body)).toBe(201)
      doomedLinks.push({ id: res.body.id, slug: res.body.slug })
    }
    const kept = await api1.post("/v1/links", { url: "https://example.com/kept" })
    expect(kept.status).toBe(201)
    const keptOnGo = await api1.post("/v1/links", { url: "https://example.com/kept-go", domain: "go.acme-one.com" })
    expect(keptOnGo.status).toBe(201)

    const res = await api1.delete(`/v1/domains/${id}`)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({ id })

    expectError(await api1.get(`/v1/domains/${id}`), 404, "not_found")
    expect((await api1.get("/v1/domains")).body.data.map((d: any) => d.id)).not.toContain(id)
    for (const link of doomedLinks) expectError(await api1.get(`/v1/links/${link.id}`), 404, "not_found")
    expect((await api1.get(`/v1/links/${kept.body.id}`)).status).toBe(200)
    expect((await api1.get(`/v1/links/${keptOnGo.body.id}`)).status).toBe(200)
    expectError(await api1.delete(`/v1/domains/${id}`), 404, "not_found")
    expectError(await api1.post(`/v1/domains/${id}/verify`), 404, "not_found")

    const rows = await outbox()
    const deletedLinks = rows.filter((r) => r.topic === "ricochet.changes.link.deleted" && r.payload.host === host)
    expect(deletedLinks.map((r) => r.payload).sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      doomedLinks.map((l) => ({ type: "link.deleted", id: l.id, host, slug: l.slug })).sort((a, b) => a.id.localeCompare(b.id))
    )
    const deletedDomain = rows.filter((r) => r.topic === "ricochet.changes.domain.deleted")
    expect(deletedDomain.map((r) => r.payload)).toEqual([{ type: "domain.deleted", id, host }])
    expect(rows.some((r) => r.topic === "ricochet.changes.link.deleted" && [kept.body.id, keptOnGo.body.id].includes(r.payload.id))).toBe(false)

    // The host is free again, for any workspace.
    const again = await api2.post("/v1/domains", { host })
    expect(again.status, JSON.stringify(again.body)).toBe(201)
    expect(again.body.status).toBe("pending")

    // The workspace subdomain cannot be removed.
    const sub = (await api1.get("/v1/domains")).body.data.find((d: any) => d.kind === "subdomain")
    const refused = await api1.delete(`/v1/domains/${sub.id}`)
    expect(refused.status).toBeGreaterThanOrEqual(400)
    expect(refused.status).toBeLessThan(500)
    expectError(refused, 409, "conflict")
    const list = (await api1.get("/v1/domains")).body.data
    expect(list.find((d: any) => d.id === sub.id)).toMatchObject({ kind: "subdomain", primary: true, status: "verified" })
    expect((await api1.get(`/v1/links/${kept.body.id}`)).status).toBe(200)
  })

  it("another workspace's key cannot see or touch this workspace's domains (404)", async () => {
    const sub = (await api1.get("/v1/domains")).body.data.find((d: any) => d.kind === "subdomain")
    for (const id of [goDomain.id, apexDomain.id, sub.id]) {
      expectError(await api2.get(`/v1/domains/${id}`), 404, "not_found")
      expectError(await api2.patch(`/v1/domains/${id}`, { rootRedirectUrl: "https://evil.example/" }), 404, "not_found")
      expectError(await api2.delete(`/v1/domains/${id}`), 404, "not_found")
      expectError(await api2.post(`/v1/domains/${id}/verify`), 404, "not_found")
    }
    const theirs = (await api2.get("/v1/domains")).body.data.map((d: any) => d.id)
    for (const id of [goDomain.id, apexDomain.id, sub.id]) expect(theirs).not.toContain(id)
    expect((await api2.get("/v1/domains")).body.data.map((d: any) => d.host).sort()).toEqual(
      ["doomed.acme-one.com", "w2.acme-two.com", W2.domain].sort()
    )
    const mine = await api1.get(`/v1/domains/${goDomain.id}`)
    expect(mine.status).toBe(200)
    expect(mine.body.rootRedirectUrl).toBeNull()
    expect(mine.body.notFoundUrl).toBe("https://acme.example/404")
  })

  it("requests without a valid key get 401", async () => {
    expectError(await apiClient(ctl.baseUrl, undefined).get("/v1/domains"), 401, "unauthorized")
    expectError(await apiClient(ctl.baseUrl, "rico_notARealKeyAtAll0123456789").post(`/v1/domains/${goDomain.id}/verify`), 401, "unauthorized")
  })
})
