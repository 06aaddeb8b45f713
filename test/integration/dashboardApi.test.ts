import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  apiClient,
  type ControlHandle,
  createWorkspace,
  eventually,
  removeDir,
  runCliPiped,
  startControl,
  tempDir,
  visit
} from "../support/processes.ts"
import { signedInClient } from "../support/signedIn.ts"
import { sleep } from "../support/time.ts"

/**
 * The dashboard's own endpoints (not in the spec): GET /v1/analytics/dashboard, one view of
 * analytics in one request counted once; GET /v1/events, the live stream. One embedded
 * `npm start`; clicks sent through its engine.
 */
let ctl: ControlHandle
let dir: string
let engine: string

beforeAll(async () => {
  dir = await tempDir()
  ctl = await startControl({
    RICOCHET_DATA_DIR: dir,
    DATABASE_URL: undefined,
    NATS_URL: undefined,
    RICOCHET_GEO_HEADER: "cf-ipcountry",
    RICOCHET_ROLL_SECONDS: "1",
    RICOCHET_COMPACT_SECONDS: "1",
    RICOCHET_COMPACT_SETTLE_SECONDS: "0",
    RICOCHET_LINK_SCHEME: "http"
  })
  engine = `http://127.0.0.1:${ctl.env.RICOCHET_ENGINE_PORT}`
}, 180_000)

afterAll(async () => {
  await ctl?.stop()
  if (dir) await removeDir(dir)
})

/**
 * `after`'s analytics allowance is `counted` requests below `before`'s: in one minute window, or,
 * when the window ended in between (the reset grew), the new window's count of at most that many.
 */
const expectCounted = (before: Headers, after: Headers, counted: number) => {
  const remaining = (h: Headers) => Number(h.get("ratelimit-remaining"))
  const reset = (h: Headers) => Number(h.get("ratelimit-reset"))
  if (reset(after) > reset(before)) expect(remaining(after)).toBeGreaterThanOrEqual(20 - counted)
  else expect(remaining(after)).toBe(remaining(before) - counted)
}

const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"

describe("GET /v1/analytics/dashboard", () => {
  it("answers totals, timeseries and breakdowns as GET /v1/analytics does, counted once against the analytics allowance", async () => {
    const ws = await createWorkspace(ctl.env, "pro", "Dashboard analytics")
    const api = apiClient(ctl.baseUrl, ws.apiKey)
    for (const slug of ["one", "two", "quiet"]) expect((await api.post("/v1/links", { url: `https://example.com/${slug}`, slug })).status).toBe(201)
    for (const [slug, country, ua] of [["one", "US", undefined], ["one", "DE", IPHONE], ["two", "US", undefined]] as const) {
      const res = await visit(engine, ws.domain, `/${slug}`, { headers: { "cf-ipcountry": country, ...(ua ? { "user-agent": ua } : {}) } })
      expect(res.status).toBe(302)
    }
    // The clicks reach the files within seconds; asked through the dashboard call, which is what is tested.
    let last: Headers | undefined
    await eventually(async () => {
      const res = await api.get("/v1/analytics/dashboard?interval=24h")
      last = res.headers
      return res.body.totals?.clicks === 3
    }, 30_000, 1_000)

    const view = await api.get("/v1/analytics/dashboard?interval=24h&include=timeseries,previous,countries,devices,top_links&limit=5")
    expect(view.status).toBe(200)
    // One request, one count: the analytics allowance of 20 went down by exactly one more.
    expect(Number(view.headers.get("ratelimit-limit"))).toBe(20)
    expectCounted(last!, view.headers, 1)
    expect(view.body.totals).toEqual({ clicks: 3, people: 3, agents: 0 })
    const series = (await api.get("/v1/analytics?groupBy=timeseries&interval=24h")).body
    expect(view.body.timeseries).toEqual(series.data)
    expect(view.body.breakdowns.countries).toEqual((await api.get("/v1/analytics?groupBy=countries&interval=24h&limit=5")).body.data)
    expect(view.body.breakdowns.devices).toEqual([{ device: "desktop", clicks: 2, people: 2, agents: 0 }, { device: "mobile", clicks: 1, people: 1, agents: 0 }])
    expect(view.body.breakdowns.top_links.map((r: { slug: string; clicks: number }) => [r.slug, r.clicks])).toEqual([["one", 2], ["two", 1]])
    // The previous 24 hours, just as long, before the link existed.
    expect(view.body.previous.totals).toEqual({ clicks: 0, people: 0, agents: 0 })
    expect(Date.parse(view.body.previous.end)).toBe(Date.parse(view.body.start))
    expect(view.body.previous.timeseries).toHaveLength(view.body.timeseries.length)
    // Only the parts asked for.
    const bare = await api.get("/v1/analytics/dashboard?interval=24h&country=DE")
    expect(bare.body).toMatchObject({ totals: { clicks: 1 }, timeseries: null, previous: null, breakdowns: {} })
    // Two GET /v1/analytics above (one count each), then this view: one more.
    expectCounted(view.headers, bare.headers, 3)
  })

  it("counts the links asked for by id, each one, with none of their clicks missing", async () => {
    const ws = await createWorkspace(ctl.env, "pro", "Dashboard link counts")
    const api = apiClient(ctl.baseUrl, ws.apiKey)
    const a = (await api.post("/v1/links", { url: "https://example.com/a", slug: "a" })).body
    const b = (await api.post("/v1/links", { url: "https://example.com/b", slug: "b" })).body
    const never = (await api.post("/v1/links", { url: "https://example.com/never", slug: "never" })).body
    for (const slug of ["a", "a", "b"]) expect((await visit(engine, ws.domain, `/${slug}`)).status).toBe(302)
    const ids = [a.id, b.id, never.id].join(",")
    await eventually(async () => (await api.get(`/v1/analytics/dashboard?interval=all&linkIds=${ids}`)).body.totals?.clicks === 3, 30_000, 1_500)
    const counted = await api.get(`/v1/analytics/dashboard?interval=all&linkIds=${b.id},${never.id}&include=top_links&limit=1`)
    expect(counted.status).toBe(200)
    // limit does not cut the links asked for by id.
    expect(counted.body.breakdowns.top_links.map((r: { linkId: string; clicks: number }) => [r.linkId, r.clicks])).toEqual([[b.id, 1]])
    expect(counted.body.totals.clicks).toBe(1)
    // A link of another workspace, or too many ids, is a 422 naming the field.
    const other = await createWorkspace(ctl.env, "pro", "Someone else")
    const theirs = (await apiClient(ctl.baseUrl, other.apiKey).post("/v1/links", { url: "https://example.com/x", slug: "x" })).body
    const foreign = await api.get(`/v1/analytics/dashboard?linkIds=${theirs.id}`)
    expect(foreign.status).toBe(422)
    expect(foreign.body.error.issues[0].path).toEqual(["linkIds"])
    const many = await api.get(`/v1/analytics/dashboard?linkIds=${Array.from({ length: 101 }, (_, i) => `lnk_${i}`).join(",")}`)
    expect(many.status).toBe(422)
    const part = await api.get("/v1/analytics/dashboard?include=planets")
    expect(part.status).toBe(422)
    expect(part.body.error.issues[0].path).toEqual(["include"])
  })
})

/** An open GET /v1/events: the events read so far, and a wait for one. */
const openStream = async (headers: Record<string, string>) => {
  const controller = new AbortController()
  const response = await fetch(`${ctl.baseUrl}/v1/events`, { headers: { accept: "text/event-stream", ...headers }, signal: controller.signal })
  const events: Array<{ type: string; data: any; at: number }> = []
  let ended = false
  if (response.ok && response.body) {
    ;(async () => {
      const decoder = new TextDecoder()
      let buffer = ""
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          buffer += decoder.decode(chunk, { stream: true })
          let end: number
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            const block = buffer.slice(0, end)
            buffer = buffer.slice(end + 2)
            const type = /^event: (.*)$/m.exec(block)?.[1]
            const data = /^data: (.*)$/m.exec(block)?.[1]
            if (type && data) events.push({ type, data: JSON.parse(data), at: Date.now() })
          }
        }
      } catch {
        // aborted
      }
      ended = true
    })()
  }
  return {
    response,
    events,
    ended: () => ended,
    close: () => controller.abort()
  }
}

describe("GET /v1/events", () => {
  it("streams a click made through the engine within 2 s, to its own workspace only", async () => {
    const [a, b] = await Promise.all([createWorkspace(ctl.env, "pro", "Live A"), createWorkspace(ctl.env, "pro", "Live B")])
    const apiA = apiClient(ctl.baseUrl, a.apiKey)
    const apiB = apiClient(ctl.baseUrl, b.apiKey)
    const link = (await apiA.post("/v1/links", { url: "https://example.com/live", slug: "live" })).body
    // The same slug in B: a click on A's must not reach B's stream.
    expect((await apiB.post("/v1/links", { url: "https://example.com/live-b", slug: "live" })).status).toBe(201)
    const streamA = await openStream({ authorization: `Bearer ${a.apiKey}` })
    const streamB = await openStream({ authorization: `Bearer ${b.apiKey}` })
    try {
      expect(streamA.response.status).toBe(200)
      expect(streamA.response.headers.get("content-type")).toMatch(/^text\/event-stream/)
      // The feed starts reading files once a stream is open: give it one round before the visit.
      await sleep(1_500)
      const visited = Date.now()
      expect((await visit(engine, a.domain, "/live", { headers: { "cf-ipcountry": "NL", "user-agent": IPHONE } })).status).toBe(302)
      await eventually(async () => streamA.events.some((e) => e.type === "click"), 10_000, 50)
      const click = streamA.events.find((e) => e.type === "click")!
      expect(click.data).toMatchObject({ linkId: link.id, slug: "live", domain: a.domain, country: "NL", device: "mobile", audience: "people" })
      expect(click.at - visited).toBeLessThanOrEqual(2_000)
      // A change of A's links arrives as a link event; B saw neither.
      expect((await apiA.patch(`/v1/links/${link.id}`, { title: "Live now" })).status).toBe(200)
      await eventually(async () => streamA.events.some((e) => e.type === "link" && e.data.linkId === link.id), 10_000, 50)
      expect(streamB.events).toEqual([])
    } finally {
      streamA.close()
      streamB.close()
    }
  })

  it("holds at most 10 streams per workspace, refusing the next with 429 until one closes", async () => {
    const ws = await createWorkspace(ctl.env, "pro", "Live bound")
    const auth = { authorization: `Bearer ${ws.apiKey}` }
    const open = await Promise.all(Array.from({ length: 10 }, () => openStream(auth)))
    try {
      expect(open.map((s) => s.response.status)).toEqual(Array(10).fill(200))
      const refused = await openStream(auth)
      expect(refused.response.status).toBe(429)
      expect(refused.response.headers.get("retry-after")).toBe("30")
      expect((await refused.response.json()).error.code).toBe("rate_limit_exceeded")
      // Another workspace is not held back by this one's streams.
      const other = await createWorkspace(ctl.env, "pro", "Live bound other")
      const theirs = await openStream({ authorization: `Bearer ${other.apiKey}` })
      expect(theirs.response.status).toBe(200)
      theirs.close()
      open.pop()!.close()
      await eventually(async () => {
        const again = await openStream(auth)
        if (again.response.status === 200) open.push(again)
        else await again.response.body?.cancel()
        return again.response.status === 200
      }, 10_000, 100)
    } finally {
      for (const s of open) s.close()
    }
  })

  it("refuses a caller without a credential, and ends a session's stream when it signs out", async () => {
    expect((await fetch(`${ctl.baseUrl}/v1/events`)).status).toBe(401)
    const ws = await createWorkspace(ctl.env, "pro", "Live session")
    const made = await runCliPiped(["user", "create", "--email", "live@example.test", "--workspace", ws.workspace.id, "--role", "admin"], ctl.env, "live stream password\n")
    expect(made.code, made.output).toBe(0)
    const signIn = await fetch(`${ctl.baseUrl}/v1/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: ctl.baseUrl },
      body: JSON.stringify({ email: "live@example.test", password: "live stream password" })
    })
    expect(signIn.status).toBe(201)
    const cookie = signIn.headers.get("set-cookie")!.split(";")[0]
    const stream = await openStream({ cookie })
    expect(stream.response.status).toBe(200)
    expect(stream.ended()).toBe(false)
    const out = await fetch(`${ctl.baseUrl}/v1/sessions/current`, { method: "DELETE", headers: { cookie, origin: ctl.baseUrl } })
    expect(out.status).toBe(200)
    await eventually(async () => stream.ended(), 5_000, 50)
  })
})

/** A session of `email` (the cookie to send), signed in with POST /v1/sessions. */
const signIn = async (email: string, password: string) => {
  const web = signedInClient(ctl.baseUrl)
  const res = await web.signIn(email, password)
  expect(res.status).toBe(201)
  return web.cookieOf(res)
}

/** Calls the API as a signed-in browser would (the cookie, and this site's Origin on writes). */
const asSession = (cookie: string) => signedInClient(ctl.baseUrl).session(cookie)

const makeUser = async (workspaceId: string, email: string, password: string, role: "admin" | "member" = "admin") => {
  const made = await runCliPiped(["user", "create", "--email", email, "--workspace", workspaceId, "--role", role], ctl.env, `${password}\n`)
  expect(made.code, made.output).toBe(0)
}

const accept = (token: string, password: string) =>
  fetch(`${ctl.baseUrl}/v1/invitations/accept`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token, password }) })

describe("members and invitations", () => {
  it("invites with a one-time link: a new account chooses its password, joins with the role, and the link works once", async () => {
    const ws = await createWorkspace(ctl.env, "pro", "Members A")
    await makeUser(ws.workspace.id, "owner-a@example.test", "owner a password")
    const owner = asSession(await signIn("owner-a@example.test", "owner a password"))
    const invited = await owner.post("/v1/invitations", { email: "New.Person@Example.test", role: "member" })
    expect(invited.status).toBe(201)
    expect(invited.body).toMatchObject({ email: "new.person@example.test", role: "member", invitedBy: "owner-a@example.test" })
    const token = invited.body.token as string
    expect((await owner.get("/v1/invitations")).body.data.map((i: { email: string }) => i.email)).toEqual(["new.person@example.test"])
    // The same email again, while this one waits: 409.
    expect((await owner.post("/v1/invitations", { email: "new.person@example.test", role: "admin" })).status).toBe(409)
    const preview = await fetch(`${ctl.baseUrl}/v1/invitations/preview`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token }) })
    expect(await preview.json()).toEqual({ email: "new.person@example.test", role: "member", workspace: { name: "Members A" }, accountExists: false })
    const short = await accept(token, "short")
    expect(short.status).toBe(422)
    expect((await short.json()).error.issues[0].path).toEqual(["password"])
    const accepted = await accept(token, "my own new password")
    expect(accepted.status).toBe(201)
    const session = await accepted.json()
    expect(session).toMatchObject({ user: { email: "new.person@example.test" }, workspace: { id: ws.workspace.id }, role: "member", mustChangePassword: false })
    const newcomer = asSession(accepted.headers.get("set-cookie")!.split(";")[0])
    expect((await newcomer.get("/v1/links")).status).toBe(200)
    // Used: the link works once; and the person signs in with the password they chose.
    expect((await accept(token, "my own new password")).status).toBe(404)
    await signIn("new.person@example.test", "my own new password")
    expect((await owner.get("/v1/members")).body.data.map((m: { email: string; role: string }) => [m.email, m.role]))
      .toEqual([["owner-a@example.test", "admin"], ["new.person@example.test", "member"]])
    // A member may not invite or change roles.
    expect((await newcomer.post("/v1/invitations", { email: "x@example.test", role: "member" })).status).toBe(403)
    expect((await owner.get("/v1/invitations")).body.data).toEqual([])
  })

  it("an existing account accepts with its own password (a wrong one is a counted guess), and switches between its workspaces", async () => {
    const [a, b] = await Promise.all([createWorkspace(ctl.env, "pro", "Members B1"), createWorkspace(ctl.env, "pro", "Members B2")])
    await makeUser(a.workspace.id, "owner-b@example.test", "owner b password")
    await makeUser(b.workspace.id, "elsewhere@example.test", "elsewhere password")
    const owner = asSession(await signIn("owner-b@example.test", "owner b password"))
    const token = (await owner.post("/v1/invitations", { email: "elsewhere@example.test", role: "admin" })).body.token
    const wrong = await accept(token, "not the password")
    expect(wrong.status).toBe(422)
    expect((await wrong.json()).error.issues[0]).toMatchObject({ path: ["password"], code: "wrong_password" })
    const right = await accept(token, "elsewhere password")
    expect(right.status).toBe(201)
    const session = await right.json()
    expect(session.workspace.id).toBe(a.workspace.id)
    expect(session.workspaces.map((w: { id: string }) => w.id).sort()).toEqual([a.workspace.id, b.workspace.id].sort())
  })

  it("roles and removal keep an admin; a removed member's session ends; other sessions can be signed out", async () => {
    const ws = await createWorkspace(ctl.env, "pro", "Members C")
    await makeUser(ws.workspace.id, "owner-c@example.test", "owner c password")
    await makeUser(ws.workspace.id, "helper-c@example.test", "helper c password", "member")
    const owner = asSession(await signIn("owner-c@example.test", "owner c password"))
    const helperCookie = await signIn("helper-c@example.test", "helper c password")
    const members = (await owner.get("/v1/members")).body.data as Array<{ userId: string; email: string }>
    const ownerId = members.find((m) => m.email === "owner-c@example.test")!.userId
    const helperId = members.find((m) => m.email === "helper-c@example.test")!.userId
    // The only admin stays one.
    expect((await owner.patch(`/v1/members/${ownerId}`, { role: "member" })).status).toBe(409)
    expect((await owner.delete(`/v1/members/${ownerId}`)).status).toBe(409)
    expect((await owner.patch(`/v1/members/${helperId}`, { role: "admin" })).body.role).toBe("admin")
    expect((await owner.patch(`/v1/members/${helperId}`, { role: "member" })).body.role).toBe("member")
    expect((await owner.patch("/v1/members/usr_nobody", { role: "member" })).status).toBe(404)
    // Removed: the helper's session in this workspace ends at once.
    expect((await asSession(helperCookie).get("/v1/links")).status).toBe(200)
    expect((await owner.delete(`/v1/members/${helperId}`)).status).toBe(200)
    expect((await asSession(helperCookie).get("/v1/links")).status).toBe(401)
    // Sign out other sessions: the second browser is signed out, this one goes on.
    const second = asSession(await signIn("owner-c@example.test", "owner c password"))
    const ended = await owner.delete("/v1/me/sessions")
    expect(ended.body).toEqual({ signedOut: 1 })
    expect((await second.get("/v1/links")).status).toBe(401)
    expect((await owner.get("/v1/links")).status).toBe(200)
    // A key has no session to keep: 401.
    expect((await apiClient(ctl.baseUrl, ws.apiKey).delete("/v1/me/sessions")).status).toBe(401)
  })
})
