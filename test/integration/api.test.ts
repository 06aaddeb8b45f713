import { Effect, Layer } from "effect"
import { FetchHttpClient, HttpClient } from "effect/http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ApiClient, makeApiClient } from "../../control/api/client.ts"
import { LimitReached, PlanRequired, Unauthorized } from "../../control/kernel/errors.ts"
import { FolderNameTaken, FolderNotFound } from "../../control/folders/errors.ts"
import { LinkNotFound, SlugTaken } from "../../control/links/errors.ts"
import { TagNameTaken, TagNotFound } from "../../control/tags/errors.ts"
import { apiClient } from "../support/processes.ts"
import { FolderUnknown, TagUnknown } from "../../control/kernel/unknownReferences.ts"
import { type InProcessControl, startInProcessControl } from "../support/inProcessControl.ts"
import { sleep } from "../support/time.ts"

/**
 * The /v1 API over HTTP (links, tags, folders, auth, isolation, limits, errors), the same suite
 * against PostgreSQL (DATABASE_URL) and the embedded default (PGlite in the data directory). The
 * API is served in this process (test/support/inProcessControl.ts): its HTTP server, routes and
 * database as a control process has them, without a process start per backend.
 *
 * Rate limits: 300 requests a minute per workspace, 30 per address without a valid key. Heavy
 * groups get their own workspace, and this file makes only a handful of unauthenticated calls.
 *
 * Happy paths and typed errors go through the typed client derived from the API declaration
 * (control/api/client.ts); what is about the wire itself (headers, form bodies, malformed or
 * invalid input the typed client would not send) through fetch.
 */

const SHORT_DOMAIN = "rico.test"

/** Every field of the spec's Link, and nothing more. */
const LINK_FIELDS = [
  "id", "domain", "slug", "shortLink", "url", "title", "description", "ogImageUrl", "folderId", "tags",
  "redirectType", "passQuery", "openInApp", "openInBrowser", "utm", "geoRules", "deviceRules", "expiresAt",
  "expiredUrl", "abTest", "hasPassword", "createdAt", "updatedAt"
].sort()

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/
const PASSWORD = "Sup3r-Secret-Passw0rd!"

interface Recorded {
  readonly method: string
  readonly path: string
  readonly status: number
  readonly headers: Headers
  readonly text: string
}

type Res = { status: number; headers: Headers; body: any }

/** `{ error: { code, message, issues? } }` with the given status and code (and an issue at `path`). */
const expectError = (res: Res, status: number, code: string, issuePath?: ReadonlyArray<string | number>) => {
  expect({ status: res.status, code: res.body?.error?.code }, JSON.stringify(res.body)).toEqual({ status, code })
  expect(res.headers.get("content-type")).toMatch(/^application\/json/)
  expect(Object.keys(res.body)).toEqual(["error"])
  const error = res.body.error
  expect(typeof error.message).toBe("string")
  expect(error.message.length).toBeGreaterThan(0)
  for (const key of Object.keys(error)) expect(["code", "message", "issues"]).toContain(key)
  if (error.issues !== undefined) {
    expect(Array.isArray(error.issues)).toBe(true)
    for (const issue of error.issues) {
      expect(Object.keys(issue).sort()).toEqual(["code", "message", "path"])
      expect(Array.isArray(issue.path)).toBe(true)
      expect(typeof issue.message).toBe("string")
      expect(typeof issue.code).toBe("string")
    }
  }
  if (issuePath !== undefined) {
    expect(error.issues, JSON.stringify(error)).toEqual(expect.arrayContaining([expect.objectContaining({ path: issuePath })]))
  }
  return error as { code: string; message: string; issues?: Array<{ path: Array<string | number>; message: string; code: string }> }
}

/** The typed client's failure, for a call expected to fail. */
const failure = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.flip(effect))
const success = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)

/** The fields a create request decides (not the id, slug or timestamps). */
const content = (link: Record<string, unknown>) => {
  const { id: _id, slug: _slug, shortLink: _shortLink, createdAt: _c, updatedAt: _u, ...rest } = link
  return rest
}

describe.each([["postgres"], ["embedded"]] as const)("API over %s", (backend) => {
  let ctl: InProcessControl
  const recorded: Array<Recorded> = []

  /** Workspace A: the first-start workspace (pro); B: another pro workspace; L: listing. */
  let A: { id: string; key: string; domain: string }
  let B: { id: string; key: string; domain: string }
  let L: { key: string; domain: string }
  let freeKey: string
  let basicKey: string
  let businessKey: string
  let memberKey: string

  const client = (key: string | undefined) => {
    const inner = apiClient(ctl.baseUrl, key)
    const call = async (method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Res> => {
      const res = await inner.call(method, path, body, headers)
      recorded.push({
        method,
        path,
        status: res.status,
        headers: res.headers,
        text: typeof res.body === "string" ? res.body : JSON.stringify(res.body)
      })
      return res
    }
    return {
      get: (path: string, headers?: Record<string, string>) => call("GET", path, undefined, headers),
      post: (path: string, body?: unknown, headers?: Record<string, string>) => call("POST", path, body, headers),
      patch: (path: string, body?: unknown, headers?: Record<string, string>) => call("PATCH", path, body, headers),
      delete: (path: string) => call("DELETE", path),
      call
    }
  }
  type Client = ReturnType<typeof client>
  let apiA: Client
  let apiB: Client
  let apiL: Client

  /** Every answer the typed clients get is recorded like the raw ones (the last test reads them all). */
  const Recording = Layer.effect(HttpClient.HttpClient)(Effect.map(Effect.service(HttpClient.HttpClient), (http) =>
    HttpClient.tap(http, (response) =>
      Effect.map(response.text, (text) => {
        const url = new URL(response.request.url)
        recorded.push({
          method: response.request.method,
          path: `${url.pathname}${url.search}`,
          status: response.status,
          headers: new Headers(Object.entries(response.headers)),
          text
        })
      }))
  )).pipe(Layer.provide(FetchHttpClient.layer))
  const typed = (key: string | undefined) => Effect.runPromise(makeApiClient(ctl.baseUrl, key).pipe(Effect.provide(Recording)))
  let A_: ApiClient
  let B_: ApiClient
  let L_: ApiClient

  beforeAll(async () => {
    ctl = await startInProcessControl(backend, { RICOCHET_SHORT_DOMAIN: SHORT_DOMAIN, RICOCHET_LINK_SCHEME: "https" })
    A = { id: ctl.first.workspace.id, key: ctl.first.apiKey, domain: ctl.first.domain }
    const [b, l, free, basic, business, member] = await Promise.all([
      ctl.createWorkspace("pro", "Workspace B"),
      ctl.createWorkspace("pro", "Listing"),
      ctl.createWorkspace("free", "Free one"),
      ctl.createWorkspace("basic", "Basic one"),
      ctl.createWorkspace("business", "Business one"),
      ctl.createKey(A.id, "member")
    ])
    B = { id: b.workspace.id, key: b.apiKey, domain: b.domain }
    L = { key: l.apiKey, domain: l.domain }
    freeKey = free.apiKey
    basicKey = basic.apiKey
    businessKey = business.apiKey
    memberKey = member.apiKey
    apiA = client(A.key)
    apiB = client(B.key)
    apiL = client(L.key)
    ;[A_, B_, L_] = await Promise.all([typed(A.key), typed(B.key), typed(L.key)])
  })

  afterAll(async () => {
    await ctl?.stop()
  })

  // --- links -----------------------------------------------------------------------------------

  describe("links", () => {
    it("creates a link with the spec's defaults and exactly the spec's fields", async () => {
      const [link, res] = await success(A_.links.create({ payload: { url: "https://example.com/defaults" }, responseMode: "decoded-and-response" }))
      expect(res.status).toBe(201)
      expect(res.headers["content-type"]).toMatch(/^application\/json/)
      expect(Object.keys(link).sort()).toEqual(LINK_FIELDS)
      expect(link.slug).toMatch(/^[0-9A-Za-z]{7}$/)
      expect(link.domain).toBe(A.domain)
      expect(A.domain).toBe(`my-workspace.${SHORT_DOMAIN}`)
      expect(link.shortLink).toBe(`https://${A.domain}/${link.slug}`)
      expect(typeof link.id).toBe("string")
      expect(link).toMatchObject({
        url: "https://example.com/defaults",
        title: null,
        description: null,
        ogImageUrl: null,
        folderId: null,
        tags: [],
        redirectType: 302,
        passQuery: false,
        openInApp: false,
        openInBrowser: false,
        utm: null,
        geoRules: [],
        deviceRules: [],
        expiresAt: null,
        expiredUrl: null,
        abTest: null,
        hasPassword: false
      })
      expect(link.createdAt).toMatch(ISO)
      expect(link.updatedAt).toMatch(ISO)

      // Random slugs differ from one link to the next.
      const again = await success(A_.links.create({ payload: { url: "https://example.com/defaults" } }))
      expect(again.slug).toMatch(/^[0-9A-Za-z]{7}$/)
      expect(again.slug).not.toBe(link.slug)
    })

    it("gets, finds by domain and slug, patches only what is sent, and deletes", async () => {
      const tag = await success(A_.tags.create({ payload: { name: "lifecycle", color: "teal" } }))
      const folder = await success(A_.folders.create({ payload: { name: "Lifecycle" } }))

      const link = await success(A_.links.create({
        payload: {
          url: "https://example.com/life?keep=1",
          slug: "life-cycle_1",
          title: "Life",
          description: "A link's life",
          ogImageUrl: "https://example.com/og.png",
          folderId: folder.id,
          tagIds: [tag.id],
          utm: { source: "newsletter", medium: "email" },
          password: PASSWORD
        }
      }))
      expect(Object.keys(link).sort()).toEqual(LINK_FIELDS)
      expect(link).toMatchObject({
        slug: "life-cycle_1",
        shortLink: `https://${A.domain}/life-cycle_1`,
        title: "Life",
        description: "A link's life",
        ogImageUrl: "https://example.com/og.png",
        folderId: folder.id,
        tags: [{ id: tag.id, name: "lifecycle", color: "teal" }],
        utm: { source: "newsletter", medium: "email" },
        hasPassword: true
      })
      expect(Object.keys(link.tags[0]).sort()).toEqual(["color", "id", "name"])

      expect(await success(A_.links.get({ params: { id: link.id } }))).toEqual(link)
      expect(await success(A_.links.info({ query: { domain: A.domain, slug: "life-cycle_1" } }))).toEqual(link)
      // Slugs are case-sensitive.
      expect(await failure(A_.links.info({ query: { domain: A.domain, slug: "LIFE-cycle_1" } }))).toBeInstanceOf(LinkNotFound)
      expectError(await apiA.get(`/v1/links/info?domain=${encodeURIComponent(A.domain)}&slug=nope-nope`), 404, "not_found")
      expectError(await apiA.get(`/v1/links/info?slug=life-cycle_1`), 422, "unprocessable_entity", ["domain"])

      await sleep(15)
      const titled = await apiA.patch(`/v1/links/${link.id}`, { title: "Renamed" })
      expect(titled.status).toBe(200)
      expect(titled.body.title).toBe("Renamed")
      expect(titled.body.updatedAt).toMatch(ISO)
      expect(titled.body.updatedAt).not.toBe(link.updatedAt)
      expect(Date.parse(titled.body.updatedAt)).toBeGreaterThan(Date.parse(link.updatedAt))
      expect({ ...titled.body, title: link.title, updatedAt: link.updatedAt }).toEqual(link)

      // An empty utm value removes that key; others are set; unsent keys stay.
      const utm = await apiA.patch(`/v1/links/${link.id}`, { utm: { source: "", campaign: "spring" } })
      expect(utm.status).toBe(200)
      expect(utm.body.utm).toEqual({ medium: "email", campaign: "spring" })
      expect(utm.body.title).toBe("Renamed")

      // `domain` is fixed at creation.
      expectError(await apiA.patch(`/v1/links/${link.id}`, { domain: A.domain }), 422, "unprocessable_entity", ["domain"])

      // null removes the password.
      const unlocked = await apiA.patch(`/v1/links/${link.id}`, { password: null })
      expect(unlocked.status).toBe(200)
      expect(unlocked.body.hasPassword).toBe(false)
      expect({ ...unlocked.body, hasPassword: true, updatedAt: utm.body.updatedAt }).toEqual(utm.body)

      // An empty PATCH changes nothing.
      const empty = await apiA.patch(`/v1/links/${link.id}`, {})
      expect(empty.status).toBe(200)
      expect(empty.body).toEqual(unlocked.body)

      // The slug can change; the old one is then free.
      const reslugged = await apiA.patch(`/v1/links/${link.id}`, { slug: "life-cycle_2", redirectType: 308, passQuery: true })
      expect(reslugged.status).toBe(200)
      expect(reslugged.body).toMatchObject({ slug: "life-cycle_2", shortLink: `https://${A.domain}/life-cycle_2`, redirectType: 308, passQuery: true })
      expectError(await apiA.get(`/v1/links/info?domain=${encodeURIComponent(A.domain)}&slug=life-cycle_1`), 404, "not_found")

      expect(await success(A_.links.delete({ params: { id: link.id } }))).toEqual({ id: link.id })
      expect(await failure(A_.links.get({ params: { id: link.id } }))).toBeInstanceOf(LinkNotFound)
      expect(await failure(A_.links.update({ params: { id: link.id }, payload: { title: "x" } }))).toBeInstanceOf(LinkNotFound)
      expectError(await apiA.delete(`/v1/links/${link.id}`), 404, "not_found")
    })

    it("takes JSON, urlencoded (brackets), multipart and JSON-in-a-form-field bodies alike", async () => {
      const [t1, t2, folder] = await Promise.all([
        apiA.post("/v1/tags", { name: "form-a", color: "pink" }),
        apiA.post("/v1/tags", { name: "form-b" }),
        apiA.post("/v1/folders", { name: "Forms" })
      ])
      expect([t1.status, t2.status, folder.status]).toEqual([201, 201, 201])
      const T1 = t1.body.id as string
      const T2 = t2.body.id as string
      const F = folder.body.id as string
      const geo = [{ country: "US", url: "https://us.example.com/" }, { country: "de", url: "https://de.example.com/" }]
      const devices = [{ device: "ios", url: "https://apps.apple.com/app/x" }]
      const utm = { source: "news", medium: "email" }

      const json = await apiA.post("/v1/links", {
        url: "https://example.com/form",
        slug: "form-json",
        title: "Form title",
        description: null,
        folderId: F,
        tagIds: [T2, T1],
        passQuery: true,
        redirectType: 301,
        openInApp: true,
        utm,
        geoRules: geo,
        deviceRules: devices,
        expiresAt: "2030-01-31T12:00:00Z",
        expiredUrl: "https://example.com/expired"
      })
      expect(json.status, JSON.stringify(json.body)).toBe(201)

      const shared: Array<[string, string]> = [
        ["url", "https://example.com/form"],
        ["title", "Form title"],
        ["description", ""],
        ["folderId", F],
        ["passQuery", "true"],
        ["redirectType", "301"],
        ["openInApp", "true"],
        ["expiresAt", "2030-01-31T12:00:00Z"],
        ["expiredUrl", "https://example.com/expired"]
      ]
      const brackets: Array<[string, string]> = [
        ["utm[source]", "news"],
        ["utm[medium]", "email"],
        ["geoRules[0][country]", "US"],
        ["geoRules[0][url]", "https://us.example.com/"],
        ["geoRules[1][country]", "de"],
        ["geoRules[1][url]", "https://de.example.com/"],
        ["deviceRules[0][device]", "ios"],
        ["deviceRules[0][url]", "https://apps.apple.com/app/x"]
      ]

      const urlencoded = await apiA.post(
        "/v1/links",
        new URLSearchParams([["slug", "form-urlencoded"], ...shared, ...brackets, ["tagIds[]", T2], ["tagIds[]", T1]])
      )
      expect(urlencoded.status, JSON.stringify(urlencoded.body)).toBe(201)

      const multipart = new FormData()
      for (const [k, v] of [["slug", "form-multipart"], ...shared, ...brackets, ["tagIds", T2], ["tagIds", T1]]) multipart.append(k, v)
      const viaMultipart = await apiA.post("/v1/links", multipart)
      expect(viaMultipart.status, JSON.stringify(viaMultipart.body)).toBe(201)

      const jsonFields = await apiA.post(
        "/v1/links",
        new URLSearchParams([
          ["slug", "form-json-fields"],
          ...shared,
          ["utm", JSON.stringify(utm)],
          ["geoRules", JSON.stringify(geo)],
          ["deviceRules", JSON.stringify(devices)],
          ["tagIds", JSON.stringify([T2, T1])]
        ])
      )
      expect(jsonFields.status, JSON.stringify(jsonFields.body)).toBe(201)

      const expected = {
        domain: A.domain,
        url: "https://example.com/form",
        title: "Form title",
        description: null,
        ogImageUrl: null,
        folderId: F,
        tags: [
          { id: T1, name: "form-a", color: "pink" },
          { id: T2, name: "form-b", color: null }
        ],
        redirectType: 301,
        passQuery: true,
        openInApp: true,
        openInBrowser: false,
        utm: { source: "news", medium: "email" },
        geoRules: [{ country: "US", url: "https://us.example.com/" }, { country: "DE", url: "https://de.example.com/" }],
        deviceRules: [{ device: "ios", url: "https://apps.apple.com/app/x" }],
        expiresAt: "2030-01-31T12:00:00.000Z",
        expiredUrl: "https://example.com/expired",
        abTest: null,
        hasPassword: false
      }
      expect(content(json.body)).toEqual(expected)
      expect(content(urlencoded.body)).toEqual(expected)
      expect(content(viaMultipart.body)).toEqual(expected)
      expect(content(jsonFields.body)).toEqual(expected)
      expect([json.body.slug, urlencoded.body.slug, viaMultipart.body.slug, jsonFields.body.slug])
        .toEqual(["form-json", "form-urlencoded", "form-multipart", "form-json-fields"])

      // Forms work on PATCH too, and form validation reports the same paths.
      const patched = await apiA.patch(`/v1/links/${urlencoded.body.id}`, new URLSearchParams([["title", ""], ["redirectType", "307"]]))
      expect(patched.status, JSON.stringify(patched.body)).toBe(200)
      expect(patched.body).toMatchObject({ title: null, redirectType: 307, passQuery: true })
      expectError(
        await apiA.post("/v1/links", new URLSearchParams([["url", "https://example.com/"], ["redirectType", "303"]])),
        422,
        "unprocessable_entity",
        ["redirectType"]
      )
    })

    it("answers 409 for a taken slug on the same domain only", async () => {
      await success(A_.links.create({ payload: { url: "https://example.com/a", slug: "promo" } }))
      const typedTaken = await failure(A_.links.create({ payload: { url: "https://example.com/b", slug: "promo" } }))
      expect(typedTaken).toBeInstanceOf(SlugTaken)
      expect(typedTaken.message).toBe(`The slug "promo" is already used on ${A.domain}`)
      const taken = expectError(await apiA.post("/v1/links", { url: "https://example.com/b", slug: "promo" }), 409, "conflict")
      expect(taken.issues).toBeUndefined()
      // Case-sensitive: a different slug.
      expect((await apiA.post("/v1/links", { url: "https://example.com/c", slug: "Promo" })).status).toBe(201)
      // The same slug on another workspace's domain is another short link.
      const elsewhere = await apiB.post("/v1/links", { url: "https://example.com/b", slug: "promo" })
      expect(elsewhere.status).toBe(201)
      expect(elsewhere.body.shortLink).toBe(`https://${B.domain}/promo`)
      // Renaming onto a taken slug conflicts too.
      const other = await apiA.post("/v1/links", { url: "https://example.com/d" })
      expectError(await apiA.patch(`/v1/links/${other.body.id}`, { slug: "promo" }), 409, "conflict")
    })

    it("accepts the workspace's own domain and refuses others with 422 at domain", async () => {
      const own = await apiA.post("/v1/links", { url: "https://example.com/own", domain: A.domain })
      expect(own.status).toBe(201)
      expect(own.body.domain).toBe(A.domain)
      expectError(await apiA.post("/v1/links", { url: "https://example.com/x", domain: B.domain }), 422, "unprocessable_entity", ["domain"])
      expectError(
        await apiA.post("/v1/links", { url: "https://example.com/x", domain: "nowhere.example.net" }),
        422,
        "unprocessable_entity",
        ["domain"]
      )
    })

    it("refuses unknown folder and tag references with 422 at the field", async () => {
      const tag = await apiA.post("/v1/tags", { name: "known" })
      expect(tag.status).toBe(201)
      const folderUnknown = await failure(A_.links.create({ payload: { url: "https://example.com/x", folderId: "fld_doesnotexist" } }))
      expect(folderUnknown).toBeInstanceOf(FolderUnknown)
      expect((folderUnknown as FolderUnknown).issues).toEqual([{ path: ["folderId"], message: 'No folder with id "fld_doesnotexist" in this workspace', code: "unknown_reference" }])
      const tagUnknown = await failure(A_.links.create({ payload: { url: "https://example.com/x", tagIds: [tag.body.id, "tag_doesnotexist"] } }))
      expect(tagUnknown).toBeInstanceOf(TagUnknown)
      expect((tagUnknown as TagUnknown).issues?.[0].path).toEqual(["tagIds", 1])
      expectError(await apiA.post("/v1/links", { url: "https://example.com/x", folderId: "fld_doesnotexist" }), 422, "unprocessable_entity", ["folderId"])
      expectError(
        await apiA.post("/v1/links", { url: "https://example.com/x", tagIds: [tag.body.id, "tag_doesnotexist"] }),
        422,
        "unprocessable_entity",
        ["tagIds", 1]
      )
      const link = await apiA.post("/v1/links", { url: "https://example.com/refs" })
      expectError(await apiA.patch(`/v1/links/${link.body.id}`, { folderId: "fld_doesnotexist" }), 422, "unprocessable_entity", ["folderId"])
      expectError(await apiA.patch(`/v1/links/${link.body.id}`, { tagIds: ["tag_doesnotexist"] }), 422, "unprocessable_entity", ["tagIds", 0])
      // Nothing was created or changed by the refused requests.
      const after = await apiA.get(`/v1/links/${link.body.id}`)
      expect(after.body).toEqual(link.body)
    })

    it("answers 400 for unparseable bodies and unsupported content types", async () => {
      expectError(await apiA.call("POST", "/v1/links", '{"url": "https://example.com/"', { "content-type": "application/json" }), 400, "bad_request")
      expectError(await apiA.call("POST", "/v1/links", '["https://example.com/"]', { "content-type": "application/json" }), 400, "bad_request")
      expectError(await apiA.call("POST", "/v1/links", "https://example.com/", { "content-type": "text/plain" }), 400, "bad_request")
      expectError(await apiA.call("PATCH", "/v1/tags/tag_x", "name=x", { "content-type": "text/plain" }), 400, "bad_request")
    })

    it("answers 422 for invalid fields, unknown fields and non-http destinations", async () => {
      const unknown = expectError(
        await apiA.post("/v1/links", { url: "https://example.com/", nope: 1 }),
        422,
        "unprocessable_entity",
        ["nope"]
      )
      expect(unknown.issues!.find((i) => i.path[0] === "nope")!.code).toBe("unknown_field")
      expectError(await apiA.post("/v1/links", { url: "javascript:alert(1)" }), 422, "unprocessable_entity", ["url"])
      expectError(await apiA.post("/v1/links", { url: "data:text/html,hi" }), 422, "unprocessable_entity", ["url"])
      expectError(await apiA.post("/v1/links", { url: "not a url" }), 422, "unprocessable_entity", ["url"])
      const missing = expectError(await apiA.post("/v1/links", { title: "no url" }), 422, "unprocessable_entity", ["url"])
      expect(missing.issues!.find((i) => i.path[0] === "url")!.code).toBe("required")
      expectError(await apiA.post("/v1/links", { url: "https://example.com/", redirectType: 303 }), 422, "unprocessable_entity", ["redirectType"])
      expectError(await apiA.post("/v1/links", { url: "https://example.com/", slug: "has space" }), 422, "unprocessable_entity", ["slug"])
      expectError(await apiA.post("/v1/links", { url: "https://example.com/", title: "t".repeat(201) }), 422, "unprocessable_entity", ["title"])
      expectError(
        await apiA.post("/v1/links", { url: "https://example.com/", geoRules: [{ country: "USA", url: "https://example.com/us" }] }),
        422,
        "unprocessable_entity",
        ["geoRules", 0, "country"]
      )
      expectError(await apiA.post("/v1/links", { url: "https://example.com/", password: "p".repeat(129) }), 422, "unprocessable_entity", ["password"])
      expect((await apiA.post("/v1/links", { url: "https://example.com/", title: "t".repeat(200) })).status).toBe(201)
    })
  })

  // --- listing ---------------------------------------------------------------------------------

  describe("listing links", () => {
    /** Ids in creation order. */
    const ids: Array<string> = []
    let folder: string
    let t1: string
    let t2: string
    let t3: string
    const newestFirst = (from: number, to: number) => ids.slice(from, to + 1).reverse()
    const listIds = async (query: string) => {
      const res = await apiL.get(`/v1/links${query}`)
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      return res.body.data.map((l: { id: string }) => l.id) as Array<string>
    }

    beforeAll(async () => {
      const [f, a, b, c] = await Promise.all([
        apiL.post("/v1/folders", { name: "Listed" }),
        apiL.post("/v1/tags", { name: "t1" }),
        apiL.post("/v1/tags", { name: "t2" }),
        apiL.post("/v1/tags", { name: "t3" })
      ])
      folder = f.body.id
      t1 = a.body.id
      t2 = b.body.id
      t3 = c.body.id
      const special: Record<number, Record<string, unknown>> = {
        3: { title: "Quarterly REPORT" },
        5: { folderId: folder },
        6: { folderId: folder, title: "report in folder" },
        7: { tagIds: [t1] },
        8: { tagIds: [t2] },
        9: { tagIds: [t1, t2] },
        10: { slug: "Findme-Slug" },
        11: { tagIds: [t3] },
        20: { url: "https://docs.example.org/Needle/path" }
      }
      // One at a time, so creation order is unambiguous.
      for (let i = 0; i < 55; i++) {
        const res = await apiL.post("/v1/links", { url: `https://example.com/list/${i}`, ...special[i] })
        if (res.status !== 201) throw new Error(`create ${i}: ${res.status} ${JSON.stringify(res.body)}`)
        ids.push(res.body.id)
      }
    })

    it("lists newest first, 50 by default, with a cursor to the rest", async () => {
      const first = await apiL.get("/v1/links")
      expect(first.status).toBe(200)
      expect(Object.keys(first.body).sort()).toEqual(["data", "nextCursor"])
      expect(first.body.data).toHaveLength(50)
      for (const link of first.body.data) expect(Object.keys(link).sort()).toEqual(LINK_FIELDS)
      expect(first.body.data.map((l: { id: string }) => l.id)).toEqual(newestFirst(5, 54))
      expect(typeof first.body.nextCursor).toBe("string")
      const second = await apiL.get(`/v1/links?cursor=${encodeURIComponent(first.body.nextCursor)}`)
      expect(second.status).toBe(200)
      expect(second.body.data.map((l: { id: string }) => l.id)).toEqual(newestFirst(0, 4))
      expect(second.body.nextCursor).toBeNull()
    })

    it("pages with limit and cursor through every link exactly once", async () => {
      const seen: Array<string> = []
      let cursor: string | null = null
      let pages = 0
      do {
        const page: { data: ReadonlyArray<{ id: string }>; nextCursor: string | null } = await success(
          L_.links.list({ query: cursor === null ? { limit: 20 } : { limit: 20, cursor } })
        )
        expect(page.data.length).toBeLessThanOrEqual(20)
        seen.push(...page.data.map((l) => l.id))
        cursor = page.nextCursor
        pages++
      } while (cursor !== null && pages < 10)
      expect(pages).toBe(3)
      expect(seen).toEqual(newestFirst(0, 54))
      expect(await listIds("?limit=100")).toEqual(newestFirst(0, 54))
      expect(await listIds("?limit=1")).toEqual([ids[54]])
    })

    it("refuses limits outside 1 to 100 and cursors it did not issue", async () => {
      expectError(await apiL.get("/v1/links?limit=0"), 422, "unprocessable_entity", ["limit"])
      expectError(await apiL.get("/v1/links?limit=101"), 422, "unprocessable_entity", ["limit"])
      expectError(await apiL.get("/v1/links?limit=ten"), 422, "unprocessable_entity", ["limit"])
      expectError(await apiL.get("/v1/links?cursor=not-a-cursor"), 422, "unprocessable_entity", ["cursor"])
      // Well-formed base64url JSON, but not a cursor this API returned.
      const forged = (value: unknown) => encodeURIComponent(Buffer.from(JSON.stringify(value)).toString("base64url"))
      expectError(await apiL.get(`/v1/links?cursor=${forged({ a: 1 })}`), 422, "unprocessable_entity", ["cursor"])
      expectError(await apiL.get(`/v1/links?cursor=${forged(["yesterday", "lnk_x"])}`), 422, "unprocessable_entity", ["cursor"])
      expectError(await apiL.get(`/v1/links?cursor=${forged(["2020", "lnk_x"])}`), 422, "unprocessable_entity", ["cursor"])
      expectError(await apiL.get(`/v1/links?cursor=${forged(["2020-02-30 00:00:00+00", "lnk_x"])}`), 422, "unprocessable_entity", ["cursor"])
      expectError(await apiL.get(`/v1/links?cursor=${forged(["1/2/2020", "lnk_x"])}`), 422, "unprocessable_entity", ["cursor"])
      // A cursor of the API's own shape that points before every link: an empty last page.
      const early = await apiL.get(`/v1/links?cursor=${forged(["2000-01-01 00:00:00.5+00", "lnk_x"])}`)
      expect(early.status).toBe(200)
      expect(early.body).toEqual({ data: [], nextCursor: null })
      expectError(await apiL.get(`/v1/links?search=${"s".repeat(101)}`), 422, "unprocessable_entity", ["search"])
      expect(await listIds(`?search=${"s".repeat(100)}`)).toEqual([])
    })

    it("filters by domain, folder and tags (any of them, comma-separated or repeated)", async () => {
      expect(await listIds(`?domain=${encodeURIComponent(L.domain)}&limit=100`)).toEqual(newestFirst(0, 54))
      expect(await listIds(`?domain=${encodeURIComponent(A.domain)}`)).toEqual([])
      expect(await listIds("?domain=nowhere.example.net")).toEqual([])
      expect(await listIds(`?folderId=${folder}`)).toEqual([ids[6], ids[5]])
      expect(await listIds("?folderId=fld_unknown")).toEqual([])
      expect(await listIds(`?tagIds=${t1}`)).toEqual([ids[9], ids[7]])
      expect(await listIds(`?tagIds=${t1},${t2}`)).toEqual([ids[9], ids[8], ids[7]])
      expect(await listIds(`?tagIds=${t1}&tagIds=${t2}`)).toEqual([ids[9], ids[8], ids[7]])
      expect(await listIds(`?tagIds=${t2}&tagIds=${t3}`)).toEqual([ids[11], ids[9], ids[8]])
      expect(await listIds(`?tagIds=${t3}&folderId=${folder}`)).toEqual([])
      // Filters and paging combine.
      const page = await apiL.get(`/v1/links?tagIds=${t1},${t2}&limit=2`)
      expect(page.body.data.map((l: { id: string }) => l.id)).toEqual([ids[9], ids[8]])
      const rest = await apiL.get(`/v1/links?tagIds=${t1},${t2}&limit=2&cursor=${encodeURIComponent(page.body.nextCursor)}`)
      expect(rest.body.data.map((l: { id: string }) => l.id)).toEqual([ids[7]])
      expect(rest.body.nextCursor).toBeNull()
    })

    it("searches slug, title and destination, case-insensitively", async () => {
      expect(await listIds("?search=report")).toEqual([ids[6], ids[3]])
      expect(await listIds("?search=QUARTERLY")).toEqual([ids[3]])
      expect(await listIds("?search=findme-SLUG")).toEqual([ids[10]])
      expect(await listIds("?search=needle")).toEqual([ids[20]])
      expect(await listIds("?search=DOCS.EXAMPLE.ORG")).toEqual([ids[20]])
      expect(await listIds(`?search=report&folderId=${folder}`)).toEqual([ids[6]])
      expect(await listIds("?search=nothing-matches-this")).toEqual([])
      // LIKE wildcards are literal text.
      expect(await listIds("?search=%25")).toEqual([])
      expect(await listIds("?search=_")).toEqual([])
    })
  })

  describe("cursor precision", () => {
    // PostgreSQL keeps microseconds; links created within one millisecond must still page apart.
    // created_at is set through the server's own client (the embedded database has one connection).
    it("pages links created within the same millisecond without skipping any", async () => {
      const api = client(businessKey)
      const created: Array<string> = []
      for (let i = 0; i < 3; i++) {
        const res = await api.post("/v1/links", { url: `https://example.com/same-ms/${i}` })
        expect(res.status).toBe(201)
        created.push(res.body.id)
      }
      for (const [i, id] of created.entries()) {
        await ctl.sql`UPDATE links SET created_at = ${`2099-01-01 00:00:00.000${i + 1}00+00`}::text::timestamptz WHERE id = ${id}`
      }
      const seen: Array<string> = []
      let cursor: string | null = null
      for (let page = 0; page < 3; page++) {
        const res: Res = await api.get(`/v1/links?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`)
        expect(res.status).toBe(200)
        seen.push(...res.body.data.map((l: { id: string }) => l.id))
        cursor = res.body.nextCursor
      }
      expect(seen).toEqual([...created].reverse())
    })
  })

  // --- tags and folders ------------------------------------------------------------------------

  describe("tags", () => {
    it("creates, lists, updates and deletes tags", async () => {
      const created = await apiA.post("/v1/tags", { name: "Marketing", color: "blue" })
      expect(created.status).toBe(201)
      expect(Object.keys(created.body).sort()).toEqual(["color", "createdAt", "id", "name"])
      expect(created.body).toMatchObject({ name: "Marketing", color: "blue" })
      expect(created.body.createdAt).toMatch(ISO)
      const plain = await apiA.post("/v1/tags", { name: "Plain" })
      expect(plain.status).toBe(201)
      expect(plain.body.color).toBeNull()

      const list = await apiA.get("/v1/tags")
      expect(list.status).toBe(200)
      expect(Object.keys(list.body)).toEqual(["data"])
      expect(list.body.data).toEqual(expect.arrayContaining([created.body, plain.body]))

      const id = created.body.id as string
      expect(await success(A_.tags.update({ params: { id }, payload: { name: "Growth" } }))).toEqual({ ...created.body, name: "Growth" })
      expect(await success(A_.tags.update({ params: { id }, payload: { color: "purple" } }))).toEqual({ ...created.body, name: "Growth", color: "purple" })
      const cleared = await apiA.patch(`/v1/tags/${id}`, { color: null })
      expect(cleared.status).toBe(200)
      expect(cleared.body).toEqual({ ...created.body, name: "Growth", color: null })

      expect(await success(A_.tags.delete({ params: { id } }))).toEqual({ id })
      expect((await success(A_.tags.list())).data.map((t) => t.id)).not.toContain(id)
      expect(await failure(A_.tags.update({ params: { id }, payload: { name: "x" } }))).toBeInstanceOf(TagNotFound)
      expectError(await apiA.delete(`/v1/tags/${created.body.id}`), 404, "not_found")
    })

    it("validates name length and color, and refuses duplicate names", async () => {
      expectError(await apiA.post("/v1/tags", { name: "" }), 422, "unprocessable_entity", ["name"])
      expectError(await apiA.post("/v1/tags", { name: "n".repeat(33) }), 422, "unprocessable_entity", ["name"])
      expectError(await apiA.post("/v1/tags", {}), 422, "unprocessable_entity", ["name"])
      expectError(await apiA.post("/v1/tags", { name: "red one", color: "red" }), 422, "unprocessable_entity", ["color"])
      expectError(await apiA.post("/v1/tags", { name: "null color", color: null }), 422, "unprocessable_entity", ["color"])
      const long = await apiA.post("/v1/tags", { name: "n".repeat(32), color: "teal" })
      expect(long.status).toBe(201)
      expect(long.body.name).toBe("n".repeat(32))
      expectError(await apiA.patch(`/v1/tags/${long.body.id}`, { color: "green" }), 422, "unprocessable_entity", ["color"])
      expectError(await apiA.patch(`/v1/tags/${long.body.id}`, { name: "" }), 422, "unprocessable_entity", ["name"])

      const dup = await apiA.post("/v1/tags", { name: "Duplicate" })
      expect(dup.status).toBe(201)
      expect(await failure(A_.tags.create({ payload: { name: "Duplicate" } }))).toBeInstanceOf(TagNameTaken)
      expectError(await apiA.post("/v1/tags", { name: "Duplicate" }), 409, "conflict")
      expectError(await apiA.patch(`/v1/tags/${long.body.id}`, { name: "Duplicate" }), 409, "conflict")
      // The refused rename left the tag as it was.
      expect((await apiA.get("/v1/tags")).body.data).toContainEqual(long.body)
    })

    it("deleting a tag leaves its links, untagged", async () => {
      const [gone, kept] = await Promise.all([apiA.post("/v1/tags", { name: "doomed" }), apiA.post("/v1/tags", { name: "kept" })])
      const both = await apiA.post("/v1/links", { url: "https://example.com/tagged", tagIds: [gone.body.id, kept.body.id] })
      const only = await apiA.post("/v1/links", { url: "https://example.com/tagged-once", tagIds: [gone.body.id] })
      expect(both.body.tags.map((t: { id: string }) => t.id).sort()).toEqual([gone.body.id, kept.body.id].sort())
      expect((await apiA.delete(`/v1/tags/${gone.body.id}`)).status).toBe(200)
      const afterBoth = await apiA.get(`/v1/links/${both.body.id}`)
      expect(afterBoth.status).toBe(200)
      expect(afterBoth.body.tags).toEqual([{ id: kept.body.id, name: "kept", color: null }])
      const afterOnly = await apiA.get(`/v1/links/${only.body.id}`)
      expect(afterOnly.status).toBe(200)
      expect(afterOnly.body.tags).toEqual([])
      expect(await apiA.get(`/v1/links?tagIds=${gone.body.id}`).then((r) => r.body.data)).toEqual([])
    })
  })

  describe("folders", () => {
    it("creates, lists, renames and deletes folders", async () => {
      const created = await apiA.post("/v1/folders", { name: "Campaigns" })
      expect(created.status).toBe(201)
      expect(Object.keys(created.body).sort()).toEqual(["createdAt", "id", "name"])
      expect(created.body.name).toBe("Campaigns")
      expect(created.body.createdAt).toMatch(ISO)
      const list = await apiA.get("/v1/folders")
      expect(list.status).toBe(200)
      expect(Object.keys(list.body)).toEqual(["data"])
      expect(list.body.data).toContainEqual(created.body)

      const renamed = await apiA.patch(`/v1/folders/${created.body.id}`, { name: "Campaigns 2030" })
      expect(renamed.status).toBe(200)
      expect(renamed.body).toEqual({ ...created.body, name: "Campaigns 2030" })
      expectError(await apiA.patch(`/v1/folders/${created.body.id}`, {}), 422, "unprocessable_entity", ["name"])
      expectError(await apiA.patch(`/v1/folders/${created.body.id}`, { name: "" }), 422, "unprocessable_entity", ["name"])
      expectError(await apiA.post("/v1/folders", { name: "" }), 422, "unprocessable_entity", ["name"])
      expectError(await apiA.post("/v1/folders", { name: "f".repeat(65) }), 422, "unprocessable_entity", ["name"])
      expect((await apiA.post("/v1/folders", { name: "f".repeat(64) })).status).toBe(201)

      expect(await success(A_.folders.delete({ params: { id: created.body.id } }))).toEqual({ id: created.body.id })
      expect((await success(A_.folders.list())).data.map((f) => f.id)).not.toContain(created.body.id)
      expect(await failure(A_.folders.update({ params: { id: created.body.id }, payload: { name: "again" } }))).toBeInstanceOf(FolderNotFound)
      expectError(await apiA.delete(`/v1/folders/${created.body.id}`), 404, "not_found")
    })

    it("deleting a folder leaves its links, outside any folder", async () => {
      const folder = await apiA.post("/v1/folders", { name: "Temporary" })
      const link = await apiA.post("/v1/links", { url: "https://example.com/in-folder", folderId: folder.body.id })
      expect(link.body.folderId).toBe(folder.body.id)
      expect((await apiA.delete(`/v1/folders/${folder.body.id}`)).status).toBe(200)
      const after = await apiA.get(`/v1/links/${link.body.id}`)
      expect(after.status).toBe(200)
      expect(after.body.folderId).toBeNull()
      expect({ ...after.body, folderId: folder.body.id }).toMatchObject({ ...link.body, updatedAt: expect.any(String) })
    })

    it("a pro workspace may have 50 folders; the 51st is limit_reached", async () => {
      const existing = (await apiB.get("/v1/folders")).body.data.length as number
      for (let batch = existing; batch < 50; batch += 10) {
        const results = await Promise.all(
          Array.from({ length: Math.min(10, 50 - batch) }, (_, i) => apiB.post("/v1/folders", { name: `Folder ${batch + i}` }))
        )
        for (const res of results) expect(res.status, JSON.stringify(res.body)).toBe(201)
      }
      expect((await apiB.get("/v1/folders")).body.data).toHaveLength(50)
      const over = await failure(B_.folders.create({ payload: { name: "One too many" } }))
      expect(over).toBeInstanceOf(LimitReached)
      expect(over.message).toBe("The pro plan allows 50 folders; remove some or upgrade")
      expectError(await apiB.post("/v1/folders", { name: "One too many" }), 403, "limit_reached")
      expect((await apiB.get("/v1/folders")).body.data).toHaveLength(50)
    })
  })

  // --- auth, plans, isolation ------------------------------------------------------------------

  describe("authentication and plans", () => {
    it("answers 401 without a key, with a malformed key and with an unknown key", async () => {
      const anonymous = client(undefined)
      const none = expectError(await anonymous.get("/v1/links"), 401, "unauthorized")
      expect(none.message).toMatch(/Bearer/)
      expectError(await anonymous.post("/v1/links", { url: "https://example.com/" }), 401, "unauthorized")
      expectError(await anonymous.get("/v1/links", { authorization: `Basic ${Buffer.from("a:b").toString("base64")}` }), 401, "unauthorized")
      expectError(await client("not-a-key").get("/v1/tags"), 401, "unauthorized")
      expectError(await client(`rico_${"A".repeat(32)}`).get("/v1/folders"), 401, "unauthorized")
      const unknownKey = await failure((await typed(`rico_${"B".repeat(32)}`)).folders.list())
      expect(unknownKey).toBeInstanceOf(Unauthorized)
      expect(unknownKey.message).toBe("The API key is not valid")
    })

    it("answers 403 plan_required to free and basic workspaces on every endpoint", async () => {
      for (const key of [freeKey, basicKey]) {
        const api = client(key)
        const calls: Array<Promise<Res>> = [
          api.get("/v1/links"),
          api.post("/v1/links", { url: "https://example.com/" }),
          api.get(`/v1/links/info?domain=${encodeURIComponent(A.domain)}&slug=promo`),
          api.get("/v1/links/lnk_x"),
          api.patch("/v1/links/lnk_x", { title: "x" }),
          api.delete("/v1/links/lnk_x"),
          api.get("/v1/tags"),
          api.post("/v1/tags", { name: "x" }),
          api.patch("/v1/tags/tag_x", { name: "y" }),
          api.delete("/v1/tags/tag_x"),
          api.get("/v1/folders"),
          api.post("/v1/folders", { name: "x" }),
          api.patch("/v1/folders/fld_x", { name: "y" }),
          api.delete("/v1/folders/fld_x")
        ]
        for (const res of await Promise.all(calls)) {
          const error = expectError(res, 403, "plan_required")
          expect(error.message).toMatch(/pro/)
        }
        const typedClient = await typed(key)
        expect(await failure(typedClient.links.list({ query: {} }))).toBeInstanceOf(PlanRequired)
        expect(await failure(typedClient.tags.list())).toBeInstanceOf(PlanRequired)
        expect(await failure(typedClient.domains.list())).toBeInstanceOf(PlanRequired)
        expect(await failure(typedClient.analytics.query({ query: {} }))).toBeInstanceOf(PlanRequired)
      }
    })

    it("serves a business workspace, Pro fields included", async () => {
      const api = client(businessKey)
      expect((await api.get("/v1/links")).status).toBe(200)
      const res = await api.post("/v1/links", {
        url: "https://example.com/ab",
        abTest: { variants: [{ url: "https://example.com/ab", weight: 50 }, { url: "https://example.com/b", weight: 50 }], endsAt: null }
      })
      expect(res.status, JSON.stringify(res.body)).toBe(201)
      expect(res.body.abTest).toEqual({ variants: [{ url: "https://example.com/ab", weight: 50 }, { url: "https://example.com/b", weight: 50 }], endsAt: null })
      expect((await api.post("/v1/tags", { name: "biz" })).status).toBe(201)
    })

    it("lets a member's key manage links, tags and folders", async () => {
      const api = client(memberKey)
      const tag = await api.post("/v1/tags", { name: "member-tag" })
      expect(tag.status).toBe(201)
      const folder = await api.post("/v1/folders", { name: "Member folder" })
      expect(folder.status).toBe(201)
      const link = await api.post("/v1/links", { url: "https://example.com/member", tagIds: [tag.body.id], folderId: folder.body.id })
      expect(link.status).toBe(201)
      expect(link.body.domain).toBe(A.domain)
      // The member acts in workspace A: the admin sees the member's link.
      expect((await apiA.get(`/v1/links/${link.body.id}`)).body).toEqual(link.body)
      expect((await api.patch(`/v1/links/${link.body.id}`, { title: "by member" })).status).toBe(200)
      expect((await api.get(`/v1/links?folderId=${folder.body.id}`)).body.data.map((l: { id: string }) => l.id)).toEqual([link.body.id])
      expect((await api.patch(`/v1/tags/${tag.body.id}`, { color: "pink" })).status).toBe(200)
      expect((await api.patch(`/v1/folders/${folder.body.id}`, { name: "Renamed by member" })).status).toBe(200)
      expect((await api.delete(`/v1/links/${link.body.id}`)).status).toBe(200)
      expect((await api.delete(`/v1/tags/${tag.body.id}`)).status).toBe(200)
      expect((await api.delete(`/v1/folders/${folder.body.id}`)).status).toBe(200)
    })
  })

  describe("workspace isolation", () => {
    it("hides one workspace's links, tags and folders from another", async () => {
      const tag = await apiA.post("/v1/tags", { name: "private-tag" })
      const folder = await apiA.post("/v1/folders", { name: "Private folder" })
      const link = await apiA.post("/v1/links", { url: "https://example.com/private", slug: "private-a", tagIds: [tag.body.id], folderId: folder.body.id })
      expect(link.status).toBe(201)

      expect(await failure(B_.links.get({ params: { id: link.body.id } }))).toBeInstanceOf(LinkNotFound)
      expect(await failure(B_.folders.delete({ params: { id: folder.body.id } }))).toBeInstanceOf(FolderNotFound)
      expectError(await apiB.get(`/v1/links/${link.body.id}`), 404, "not_found")
      expectError(await apiB.patch(`/v1/links/${link.body.id}`, { title: "stolen" }), 404, "not_found")
      expectError(await apiB.delete(`/v1/links/${link.body.id}`), 404, "not_found")
      expectError(await apiB.get(`/v1/links/info?domain=${encodeURIComponent(A.domain)}&slug=private-a`), 404, "not_found")
      expectError(await apiB.patch(`/v1/tags/${tag.body.id}`, { name: "stolen" }), 404, "not_found")
      expectError(await apiB.delete(`/v1/tags/${tag.body.id}`), 404, "not_found")
      expectError(await apiB.patch(`/v1/folders/${folder.body.id}`, { name: "stolen" }), 404, "not_found")
      expectError(await apiB.delete(`/v1/folders/${folder.body.id}`), 404, "not_found")
      // Another workspace's ids are unknown references in a body.
      expectError(await apiB.post("/v1/links", { url: "https://example.com/x", folderId: folder.body.id }), 422, "unprocessable_entity", ["folderId"])
      expectError(await apiB.post("/v1/links", { url: "https://example.com/x", tagIds: [tag.body.id] }), 422, "unprocessable_entity", ["tagIds", 0])

      const bLinks = await apiB.get("/v1/links?limit=100")
      expect(bLinks.status).toBe(200)
      expect(bLinks.body.data.length).toBeGreaterThan(0)
      for (const l of bLinks.body.data) expect(l.domain).toBe(B.domain)
      expect(bLinks.body.data.map((l: { id: string }) => l.id)).not.toContain(link.body.id)
      expect((await apiB.get(`/v1/links?tagIds=${tag.body.id}`)).body.data).toEqual([])
      expect((await apiB.get(`/v1/links?folderId=${folder.body.id}`)).body.data).toEqual([])
      expect((await apiB.get("/v1/links?search=private")).body.data).toEqual([])
      expect((await apiB.get("/v1/tags")).body.data.map((t: { id: string }) => t.id)).not.toContain(tag.body.id)
      expect((await apiB.get("/v1/folders")).body.data.map((f: { id: string }) => f.id)).not.toContain(folder.body.id)

      // A's resources are untouched.
      expect((await apiA.get(`/v1/links/${link.body.id}`)).body).toEqual(link.body)
      expect((await apiA.get("/v1/tags")).body.data).toContainEqual(tag.body)
      expect((await apiA.get("/v1/folders")).body.data).toContainEqual(folder.body)
    })
  })

  // --- protocol --------------------------------------------------------------------------------

  describe("protocol", () => {
    it("reports the rate-limit allowance, counting down", async () => {
      const first = await apiA.get("/v1/tags")
      const second = await apiA.get("/v1/tags")
      for (const res of [first, second]) {
        expect(res.headers.get("ratelimit-limit")).toBe("300")
        expect(Number(res.headers.get("ratelimit-reset"))).toBeGreaterThanOrEqual(1)
        expect(Number(res.headers.get("ratelimit-reset"))).toBeLessThanOrEqual(60)
      }
      const [r1, r2] = [first, second].map((r) => Number(r.headers.get("ratelimit-remaining")))
      const rolledOver = Number(second.headers.get("ratelimit-reset")) > Number(first.headers.get("ratelimit-reset"))
      if (!rolledOver) expect(r2).toBe(r1 - 1)
      expect(r1).toBeLessThan(300)
      // Each workspace has its own allowance.
      const other = await client(businessKey).get("/v1/tags")
      expect(other.headers.get("ratelimit-limit")).toBe("300")
      expect(Number(other.headers.get("ratelimit-remaining"))).toBeGreaterThan(r2)
      // Unauthenticated requests are counted per address, with a smaller allowance.
      const anonymous = await client(undefined).get("/v1/links")
      expect(anonymous.status).toBe(401)
      expect(anonymous.headers.get("ratelimit-limit")).toBe("30")
    })

    it("answers unknown /v1 paths with a JSON 404", async () => {
      expectError(await apiA.get("/v1/nope"), 404, "not_found")
      expectError(await apiA.post("/v1/nope/deeper", { a: 1 }), 404, "not_found")
      expectError(await apiA.call("PUT", "/v1/links"), 404, "not_found")
    })

    it("serves its OpenAPI description and a health check", async () => {
      const doc = await client(undefined).get("/v1/openapi.json")
      expect(doc.status).toBe(200)
      expect(doc.body.openapi).toBe("3.1.0")
      expect(doc.body.info.version).toBe("1.0.0")
      for (const path of ["/v1/links", "/v1/links/{id}", "/v1/links/info", "/v1/tags", "/v1/tags/{id}", "/v1/folders", "/v1/folders/{id}"]) {
        expect(Object.keys(doc.body.paths)).toContain(path)
      }
      expect(Object.keys(doc.body.paths["/v1/links"]).sort()).toEqual(["get", "post"])
      expect(Object.keys(doc.body.paths["/v1/links/{id}"]).sort()).toEqual(["delete", "get", "patch"])
      const health = await fetch(`${ctl.baseUrl}/healthz`)
      expect(health.status).toBe(200)
    })

    it("serves an API reference page that loads nothing from elsewhere", async () => {
      const page = await fetch(`${ctl.baseUrl}/v1/docs`)
      expect(page.status).toBe(200)
      expect(page.headers.get("content-type")).toMatch(/^text\/html/)
      // Counted like the OpenAPI document: anonymous, per address.
      expect(page.headers.get("ratelimit-limit")).toBe("30")
      const html = await page.text()
      expect(html).toContain("Ricochet API")
      // Scalar's script is inline (from the effect package), the document too: no element of the page
      // fetches anything. (The script's own text names URLs, e.g. of the fonts it is told not to load.)
      const markup = html.replace(/<script>[\s\S]*?<\/script>/g, "<script></script>")
      expect(markup).not.toMatch(/<(?:script|link|img|iframe|source|object|embed)\b[^>]*\b(?:src|href|data)\s*=/i)
      expect(markup).not.toMatch(/https?:\/\//i)
      expect(html.match(/<script>/g)?.length).toBe(2)
      // Scalar would load its fonts from its own servers; the page uses the browser's.
      expect(html).toMatch(/"withDefaultFonts":false/)
    })

    it("puts RateLimit headers on every /v1 response, and no internals or secrets in any body", () => {
      const v1 = recorded.filter((r) => r.path.startsWith("/v1/"))
      expect(v1.length).toBeGreaterThan(300)
      const statuses = new Set(v1.map((r) => r.status))
      for (const status of [200, 201, 400, 401, 403, 404, 409, 422]) expect(statuses).toContain(status)
      for (const r of v1) {
        const where = `${r.method} ${r.path} → ${r.status}`
        for (const header of ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"]) {
          expect(r.headers.get(header), `${header} on ${where}`).toMatch(/^\d+$/)
        }
        expect(r.headers.get("content-type"), where).toMatch(/^application\/json/)
      }
      for (const r of recorded) {
        const where = `${r.method} ${r.path} → ${r.status}: ${r.text.slice(0, 300)}`
        expect(r.text, where).not.toContain(PASSWORD)
        expect(r.text, where).not.toMatch(/argon2/i)
        if (r.status >= 400) {
          expect(r.text, where).not.toMatch(/\bat .+:\d+:\d+/)
          expect(r.text, where).not.toMatch(/\b(SELECT|INSERT|UPDATE|DELETE FROM)\b/)
          expect(r.text, where).not.toMatch(/postgres|pglite|sqlstate|violates/i)
        }
      }
    })
  })
})
