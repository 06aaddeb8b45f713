import fc from "fast-check"
import * as path from "node:path"
import postgres from "postgres"
import qs from "qs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Effect } from "effect"
import { HttpApi } from "effect/http-api"
import { Api } from "../../control/api/Api.ts"
import { makeWakeSignal } from "../../control/jobs/wakeSignal.ts"
import { OutboxSignal } from "../../control/outbox/OutboxSignal.ts"
import { createKey, createWorkspace, type ProvisionedWorkspace } from "../../control/workspaces/provisioning.ts"
import { Database } from "../../shared/db/Database.ts"
import { makeOutageLog } from "../../shared/db/outageLog.ts"
import { writeClicksParquet } from "../../shared/clicks/clickCsv.ts"
import { openDuckDb, partitionOf } from "../../shared/clicks/parquet.ts"
import { clickRecord } from "../support/clickRecord.ts"
import { startDnsServer } from "../support/dnsServer.ts"
import { errorBodyProblem, headersProblem } from "../support/errorBody.ts"
import { apiClient, type ControlHandle, createTestDatabase, removeDir, startControl, tempDir } from "../support/processes.ts"

/**
 * Property-based fuzz of every /v1 endpoint against a real control process on PostgreSQL
 * (issue 10, "A fault and fuzz suite that stays"): random bodies, query strings, headers,
 * content types and charsets, NUL, lone surrogates and bytes that are not UTF-8, deep nesting in
 * JSON and bracket forms, values near the 1 MiB cap and huge key counts.
 *
 * Properties, for every request: no 5xx; the process is still running; every answer is JSON with
 * the RateLimit headers, and every refusal is exactly `{ error: { code, message, issues? } }` with
 * a code of the spec (a request line Node refuses before any handler, 431, is not counted and has
 * no RateLimit headers).
 *
 * RICOCHET_FUZZ_RUNS sets the number of requests (default 400, about 30 s with the start; `npm run
 * test:faults` runs 2,000), RICOCHET_FUZZ_SEED replays a run; the seed is printed at the start
 * and in any failure. Requests go to the business workspace with the fewest calls in the last
 * minute (300 a minute each, 20 for analytics), so 429 stays a minority answer.
 */

const RUNS = Number(process.env.RICOCHET_FUZZ_RUNS ?? 400)
const SEED = process.env.RICOCHET_FUZZ_SEED !== undefined ? Number(process.env.RICOCHET_FUZZ_SEED) : Date.now() % 2 ** 31
/** Enough workspaces that the runs of one minute stay under each one's 300. */
const WORKSPACES = Math.min(12, Math.max(3, Math.ceil(RUNS / 150)))
const SHORT_DOMAIN = "fuzz.test"

// --- what the requests are made of -------------------------------------------------------------

const BODY_FIELDS = [
  "url", "domain", "slug", "title", "description", "ogImageUrl", "folderId", "tagIds", "redirectType", "passQuery", "openInApp",
  "openInBrowser", "utm", "geoRules", "deviceRules", "expiresAt", "expiredUrl", "abTest", "password", "name", "color", "host",
  "rootRedirectUrl", "notFoundUrl"
]
const QUERY_FIELDS = [
  "domain", "folderId", "tagIds", "search", "limit", "cursor", "slug", "groupBy", "interval", "linkId", "country", "device", "browser",
  "os", "referer", "utmSource", "utmMedium", "utmCampaign", "audience"
]
const NESTED_KEYS = ["source", "medium", "campaign", "country", "device", "url", "weight", "variants", "endsAt", "0", "1", "", "__proto__", "constructor"]

const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")

/** Ids that exist (filled in once the workspaces are seeded), so handlers get past their lookups too. */
const knownIds: Array<string> = ["lnk_x"]

const INTERESTING = [
  "", " ", "\u0000", "a\u0000b", "\ud800", "x\udfff", "😀", "Grüße", "null", "true", "false", "0", "-1", "1.5", "1e309", "301", "308", "303",
  "100", "101", "https://example.com/x", " https://example.com/padded ", "https://example.com/ü?q=1#f", "javascript:alert(1)",
  "http://[::1]/", "ftp://example.com", "US", "us", "USA", "ios", "desktop", "blue", "red", "2030-01-01T00:00:00Z",
  "2030-02-30T00:00:00Z", "[]", "{}", '[{"country":"US","url":"https://a.com"}]', '{"source":"x"}', "__proto__", "constructor",
  "%", "%ff", "%00", "'; DROP TABLE links; --", "a,b,,c", "(direct)", "count", "timeseries", "countries", "top_links", "24h", "7d",
  "all", "people", "agents", "go.example.com", "example.com", "localhost", "x".repeat(201), "p".repeat(129),
  cursorOf(["2026-11-23 17:11:04.41714+99", "x"]), cursorOf(["2026-11-23 17:11:04.41714+00", "lnk_x"]), cursorOf(["yesterday", 1]),
  cursorOf(["2026-11-23 17:11:04+00", "lnk_\u0000"]), "!!!"
]

/** Text for any field: names, URLs, ids, and what once broke something (NUL, lone surrogates, quotes). */
const smallText = fc.oneof(
  { arbitrary: fc.constantFrom(...INTERESTING), weight: 6 },
  { arbitrary: fc.nat().map((i) => knownIds[i % knownIds.length]), weight: 2 },
  { arbitrary: fc.string({ unit: "binary", maxLength: 24 }), weight: 2 },
  { arbitrary: fc.string({ maxLength: 24 }), weight: 2 },
  { arbitrary: fc.constantFrom("\ud800", "\udc00", "\ud83d").chain((s) => fc.string({ maxLength: 6 }).map((t) => `${t}${s}${t}`)), weight: 1 }
)

/** Body text, sometimes near the body cap: accepted up to 1 MiB (then refused by a field's length), a 400 past it. */
const leafText = fc.oneof(
  { arbitrary: smallText, weight: 12 },
  { arbitrary: fc.integer({ min: 1, max: 1100 }).map((k) => "x".repeat(k * 1000)), weight: 1 }
)

const leafValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: leafText, weight: 6 },
  { arbitrary: fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null)), weight: 2 }
)

const fieldName = (fields: ReadonlyArray<string>) =>
  fc.oneof({ arbitrary: fc.constantFrom(...fields), weight: 8 }, { arbitrary: fc.string({ maxLength: 10 }), weight: 1 })

const jsonValue = (fields: ReadonlyArray<string>): fc.Arbitrary<unknown> =>
  fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      { arbitrary: leafValue, weight: 4 },
      { arbitrary: fc.array(tie("value"), { maxLength: 6 }), weight: 1 },
      { arbitrary: fc.dictionary(fc.oneof(fc.constantFrom(...NESTED_KEYS, ...fields), fc.string({ maxLength: 8 })), tie("value"), { maxKeys: 5 }), weight: 1 }
    )
  })).value

/** JSON text: mostly objects of the endpoint's fields, and the shapes that once hurt. */
const jsonText = (fields: ReadonlyArray<string>): fc.Arbitrary<string> =>
  fc.oneof(
    { arbitrary: fc.dictionary(fieldName(fields), jsonValue(fields), { maxKeys: 8 }).map((v) => JSON.stringify(v)), weight: 12 },
    // Lone surrogates written as JSON escapes.
    { arbitrary: fc.constantFrom(...fields).map((f) => `{"${f}":"a\\ud800"}`), weight: 1 },
    // Deep nesting, up to a megabyte of brackets.
    { arbitrary: fc.tuple(fc.constantFrom(...fields), fc.integer({ min: 1, max: 520_000 }), fc.boolean()).map(([f, n, object]) =>
      object ? `{"${f}":${'{"a":'.repeat(Math.min(n, 200_000))}1${"}".repeat(Math.min(n, 200_000))}}` : `{"${f}":${"[".repeat(n)}${"]".repeat(n)}}`), weight: 2 },
    // Huge key and item counts.
    { arbitrary: fc.integer({ min: 900, max: 60_000 }).map((n) => `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(",")}}`), weight: 1 },
    { arbitrary: fc.tuple(fc.constantFrom("tagIds", "geoRules", "deviceRules"), fc.integer({ min: 90, max: 120_000 })).map(([f, n]) =>
      `{"url":"https://example.com","${f}":[${Array.from({ length: n }, () => '"x"').join(",")}]}`), weight: 1 },
    // Not an object, or not JSON.
    { arbitrary: fc.constantFrom("[]", "null", "1", '"x"', "{", '{"url":', "{'url':1}", "\ufeff{}", "{}".repeat(3)), weight: 1 },
    { arbitrary: fc.dictionary(fieldName(fields), jsonValue(fields), { maxKeys: 4 }).chain((v) => {
      const text = JSON.stringify(v)
      return fc.nat({ max: text.length }).map((cut) => text.slice(0, cut))
    }), weight: 1 }
  )

const percent = (text: string) => {
  try {
    return encodeURIComponent(text)
  } catch {
    return text // a lone surrogate: sent as it is
  }
}

/**
 * A form or query key: plain, bracketed as the API reads them, or bracketed absurdly (a body may
 * nest 100,000 levels; a query string stays under Node's 16 KB, else every one would be a 431).
 */
const formKey = (fields: ReadonlyArray<string>, maxNesting: number) =>
  fc.oneof(
    { arbitrary: fieldName(fields), weight: 6 },
    { arbitrary: fc.tuple(fc.constantFrom(...fields), fc.array(fc.oneof(fc.constantFrom(...NESTED_KEYS), fc.nat({ max: 400 }).map(String)), { minLength: 1, maxLength: 7 }))
      .map(([f, parts]) => `${f}${parts.map((p) => `[${p}]`).join("")}`), weight: 4 },
    { arbitrary: fc.tuple(fc.constantFrom(...fields), fc.integer({ min: 6, max: maxNesting })).map(([f, n]) => `${f}${"[a]".repeat(n)}`), weight: 1 },
    { arbitrary: fc.constantFrom("a[b", "a]", "[x]", "[]", "__proto__[x]", "constructor[prototype][x]", "a[[b]]", "="), weight: 1 }
  )

/** urlencoded pairs: escaped, or raw (bad escapes, stray `%`, `&` and `=`), or a thousand and more of them. */
const urlencoded = (fields: ReadonlyArray<string>, where: "body" | "query"): fc.Arbitrary<string> =>
  fc.oneof(
    { arbitrary: fc.array(fc.tuple(formKey(fields, where === "body" ? 100_000 : 2000), where === "body" ? leafText : smallText, fc.boolean()), { maxLength: 10 })
      .map((pairs) => pairs.map(([k, v, raw]) => (raw ? `${k}=${v}` : `${percent(k)}=${percent(v)}`)).join("&")), weight: 10 },
    { arbitrary: fc.integer({ min: 900, max: where === "body" ? 30_000 : 1500 }).map((n) => Array.from({ length: n }, (_, i) => `f${i}=1`).join("&")), weight: 1 },
    { arbitrary: fc.constantFrom("%ff=1", "a=%ff", "a=%C3", "a=%ED%A0%80", "&&&", "=", "a", "a=b=c", "%=%", "a=1&a=2&a[]=3&a[x]=4"), weight: 1 }
  )

const slugText = fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/)
const urlText = fc.webUrl({ validSchemes: ["https", "http"] })

/** A body the endpoint accepts (so handlers and the database run), with a few random fields mixed in. */
const validBody = (method: string, template: string, fields: ReadonlyArray<string>): fc.Arbitrary<Record<string, unknown>> => {
  const base: fc.Arbitrary<Record<string, unknown>> = template.startsWith("/v1/links")
    ? fc.record({
      url: urlText,
      slug: fc.option(slugText, { nil: undefined }),
      title: fc.option(fc.string({ maxLength: 30 }), { nil: undefined }),
      utm: fc.option(fc.record({ source: fc.string({ maxLength: 10 }) }), { nil: undefined }),
      geoRules: fc.option(fc.array(fc.record({ country: fc.constantFrom("US", "DE", "FR", "jp"), url: urlText }), { maxLength: 3 }), { nil: undefined }),
      tagIds: fc.option(fc.array(fc.nat().map((i) => knownIds[i % knownIds.length]), { maxLength: 3 }), { nil: undefined }),
      passQuery: fc.option(fc.boolean(), { nil: undefined })
    }, { requiredKeys: method === "POST" ? ["url"] : [] })
    : template.startsWith("/v1/tags") ? fc.record({ name: fc.string({ minLength: 1, maxLength: 32 }), color: fc.option(fc.constantFrom("blue", "teal", "purple", "pink"), { nil: undefined }) })
    : template.startsWith("/v1/folders") ? fc.record({ name: fc.string({ minLength: 1, maxLength: 64 }) })
    : template.startsWith("/v1/domains") && method === "POST" ? fc.record({ host: fc.domain() })
    : template.startsWith("/v1/domains") ? fc.record({ notFoundUrl: fc.option(urlText, { nil: null }) })
    : fc.constant({})
  const extra = fc.dictionary(fc.constantFrom(...fields), jsonValue(fields), { maxKeys: 2 })
  return fc.tuple(base, fc.oneof({ arbitrary: fc.constant({}), weight: 3 }, { arbitrary: extra, weight: 1 }))
    .map(([b, e]) => Object.fromEntries(Object.entries({ ...b, ...e }).filter(([, v]) => v !== undefined)))
}

type Body = { readonly kind: "text"; readonly text: string; readonly encoding: BufferEncoding } | { readonly kind: "bytes"; readonly bytes: Uint8Array } | {
  readonly kind: "multipart"
  readonly pairs: ReadonlyArray<readonly [string, string]>
}

const CONTENT_TYPES = [
  "application/json", "application/json; charset=utf-8", "application/json; charset=UTF-16LE", "application/json; charset=utf-16",
  "application/json; charset=klingon", "application/json; charset=latin1", "application/merge-patch+json", "application/json;;;",
  "application/x-www-form-urlencoded", "application/x-www-form-urlencoded; charset=iso-8859-1", "application/x-www-form-urlencoded; charset=shift_jis",
  "multipart/form-data", "multipart/form-data; boundary=nope", "text/plain", "text/html; charset=utf-8", "", "a/b; charset=\"", "*/*",
  "application/octet-stream"
]

interface Shape {
  readonly body: Body | undefined
  /** undefined: let fetch choose (multipart), null: none. */
  readonly contentType: string | null | undefined
}

const bodyShape = (method: string, template: string, fields: ReadonlyArray<string>): fc.Arbitrary<Shape> =>
  fc.oneof(
    { arbitrary: validBody(method, template, fields).chain((value) => fc.constantFrom<Shape>(
      { body: { kind: "text", text: JSON.stringify(value), encoding: "utf8" }, contentType: "application/json" },
      { body: { kind: "text", text: qs.stringify(value), encoding: "latin1" }, contentType: "application/x-www-form-urlencoded" },
      { body: { kind: "multipart", pairs: qs.stringify(value, { encode: false }).split("&").filter((p) => p !== "").map((p) => {
        const at = p.indexOf("=")
        return [p.slice(0, at), p.slice(at + 1)] as const
      }) }, contentType: undefined }
    )), weight: 20 },
    { arbitrary: fc.tuple(jsonText(fields), fc.constantFrom<BufferEncoding>("utf8", "utf8", "utf8", "utf16le", "latin1"), fc.constantFrom(...CONTENT_TYPES.slice(0, 8), "application/json"))
      .map(([text, encoding, contentType]) => ({ body: { kind: "text", text, encoding } as Body, contentType })), weight: 8 },
    { arbitrary: fc.tuple(urlencoded(fields, "body"), fc.constantFrom(...CONTENT_TYPES.slice(8, 11), "application/x-www-form-urlencoded"))
      .map(([text, contentType]) => ({ body: { kind: "text", text, encoding: "latin1" } as Body, contentType })), weight: 6 },
    { arbitrary: fc.array(fc.tuple(formKey(fields, 100_000), leafText), { maxLength: 8 }).map((pairs) => ({ body: { kind: "multipart", pairs } as Body, contentType: undefined })), weight: 3 },
    { arbitrary: fc.tuple(fc.uint8Array({ maxLength: 300 }), fc.constantFrom(...CONTENT_TYPES)).map(([bytes, contentType]) => ({ body: { kind: "bytes", bytes } as Body, contentType })), weight: 2 },
    { arbitrary: fc.tuple(fc.string({ maxLength: 60 }), fc.constantFrom(...CONTENT_TYPES)).map(([text, contentType]) => ({ body: { kind: "text", text, encoding: "utf8" } as Body, contentType })), weight: 1 },
    { arbitrary: fc.constant({ body: undefined, contentType: null }), weight: 2 }
  )

/** A path segment for `:id`: an id that exists, text, or what the router and the database choke on. */
const idSegment = fc.oneof(
  { arbitrary: fc.nat().map((i) => knownIds[i % knownIds.length]), weight: 40 },
  { arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 30 }).map(percent), weight: 30 },
  { arbitrary: fc.constantFrom("%ff", "%00", "lnk_%00", "%ED%A0%80", "%", "%zz", "a%2Fb", "%2e%2e", "x".repeat(70), "y".repeat(5000)), weight: 20 },
  { arbitrary: fc.constant("z".repeat(17_000)), weight: 2 }
)

interface Endpoint {
  readonly method: string
  readonly template: string
  readonly bodyFields: ReadonlyArray<string>
  readonly queryFields: ReadonlyArray<string>
  readonly analytics: boolean
}

const propertyNames = (schema: unknown): Array<string> => {
  const ast = (schema as { ast?: { propertySignatures?: Array<{ name: PropertyKey }> } } | undefined)?.ast
  return (ast?.propertySignatures ?? []).map((p) => String(p.name))
}

/** Every endpoint of the API declaration, with the fields its body and query take. */
const API_ENDPOINTS: Array<Endpoint> = []
HttpApi.reflect(Api, {
  onGroup: () => {},
  onEndpoint: ({ endpoint, group }) => {
    const body = endpoint.payload.get("application/json")?.schemas[0]
    API_ENDPOINTS.push({
      method: endpoint.method,
      template: endpoint.path,
      bodyFields: propertyNames(body).length > 0 ? propertyNames(body) : BODY_FIELDS,
      queryFields: propertyNames(endpoint.query).length > 0 ? propertyNames(endpoint.query) : QUERY_FIELDS,
      analytics: group.identifier === "analytics"
    })
  }
})

const ENDPOINTS: ReadonlyArray<Endpoint> = [
  ...API_ENDPOINTS,
  { method: "GET", template: "/v1/openapi.json", bodyFields: BODY_FIELDS, queryFields: QUERY_FIELDS, analytics: false },
  { method: "GET", template: "/v1/nope", bodyFields: BODY_FIELDS, queryFields: QUERY_FIELDS, analytics: false },
  { method: "PUT", template: "/v1/links", bodyFields: BODY_FIELDS, queryFields: QUERY_FIELDS, analytics: false },
  { method: "POST", template: "/v1/links/:id/deeper", bodyFields: BODY_FIELDS, queryFields: QUERY_FIELDS, analytics: false },
  { method: "OPTIONS", template: "/v1/tags", bodyFields: BODY_FIELDS, queryFields: QUERY_FIELDS, analytics: false }
]

type Auth = "workspace" | "member" | "free" | "none" | "garbage"

interface FuzzRequest {
  readonly endpoint: Endpoint
  readonly id: string
  readonly query: string
  readonly shape: Shape
  readonly auth: Auth
  readonly headers: Record<string, string>
}

const HEADER_NAMES = ["accept", "accept-charset", "accept-encoding", "x-forwarded-for", "user-agent", "if-none-match", "cookie", "x-request-id", "origin"]
const headerValue = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 40 })

const fuzzRequest: fc.Arbitrary<FuzzRequest> = fc.constantFrom(...ENDPOINTS).chain((endpoint) =>
  fc.record({
    endpoint: fc.constant(endpoint),
    id: idSegment,
    query: fc.oneof(
      { arbitrary: urlencoded(endpoint.queryFields, "query"), weight: 10 },
      { arbitrary: fc.constant(""), weight: 4 },
      // Past Node's 16 KB for the request line and headers: a 431.
      { arbitrary: fc.integer({ min: 1, max: 20 }).map((k) => `search=${"s".repeat(k * 1000)}`), weight: 1 }
    ),
    // fetch sends no body with GET (nor would a well-behaved client).
    shape: endpoint.method === "POST" || endpoint.method === "PATCH"
      ? bodyShape(endpoint.method, endpoint.template, endpoint.bodyFields)
      : endpoint.method === "GET"
      ? fc.constant<Shape>({ body: undefined, contentType: null })
      : fc.oneof(
        { arbitrary: fc.constant<Shape>({ body: undefined, contentType: null }), weight: 5 },
        { arbitrary: bodyShape(endpoint.method, endpoint.template, endpoint.bodyFields), weight: 1 }
      ),
    auth: fc.oneof(
      { arbitrary: fc.constant<Auth>("workspace"), weight: 24 },
      { arbitrary: fc.constantFrom<Auth>("member", "free"), weight: 2 },
      { arbitrary: fc.constantFrom<Auth>("none", "garbage"), weight: 1 }
    ),
    headers: fc.dictionary(fc.constantFrom(...HEADER_NAMES), headerValue, { maxKeys: 3 })
  }).map((r) => Object.assign(r, { [fc.toStringMethod]: () => describeRequest(r, `${r.endpoint.template.replace(":id", r.id)}?${r.query}`) }))
)

/** Successes that are not JSON: the CSV export and the QR code images, as the declaration says. */
const MEDIA_SUCCESSES: ReadonlyArray<readonly [RegExp, RegExp]> = [
  [/^GET \/v1\/links\/export\b/, /^text\/csv\b/],
  [/^GET \/v1\/links\/[^/?]+\/qr\b/, /^image\/(png|svg\+xml)\b/]
]

const successProblem = (answer: { status: number; headers: Headers; text: string }, request: string): string | undefined => {
  if (answer.status < 200 || answer.status > 299) return `status ${answer.status}`
  const media = MEDIA_SUCCESSES.find(([endpoint]) => endpoint.test(request))
  if (media !== undefined) {
    const contentType = answer.headers.get("content-type") ?? ""
    if (!media[1].test(contentType)) return `content-type ${JSON.stringify(contentType)}`
    return headersProblem({ ...answer, headers: new Headers({ ...Object.fromEntries(answer.headers), "content-type": "application/json" }) })
  }
  const headers = headersProblem(answer)
  if (headers !== undefined) return headers
  try {
    JSON.parse(answer.text)
  } catch {
    return "a body that is not JSON"
  }
  return undefined
}

const describeRequest = (r: FuzzRequest, target: string): string => {
  const body = r.shape.body
  const preview = body === undefined ? "(none)"
    : body.kind === "text" ? `${body.encoding} ${JSON.stringify(body.text.slice(0, 300))}${body.text.length > 300 ? ` … (${body.text.length} chars)` : ""}`
    : body.kind === "bytes" ? `bytes ${Buffer.from(body.bytes).toString("hex").slice(0, 200)}`
    : `multipart ${JSON.stringify(body.pairs).slice(0, 300)}`
  return `${r.endpoint.method} ${target.slice(0, 400)}${target.length > 400 ? ` … (${target.length} chars)` : ""}\n  auth ${r.auth}, content-type ${JSON.stringify(r.shape.contentType)}, headers ${JSON.stringify(r.headers)}\n  body ${preview}`
}

// --- the run ---------------------------------------------------------------------------------

describe("fuzz: every /v1 endpoint of a real control on PostgreSQL", () => {
  let ctl: ControlHandle
  let dir: string
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let dns: Awaited<ReturnType<typeof startDnsServer>>
  const keys: Array<{ key: string; calls: Array<number>; analytics: Array<number> }> = []
  let memberKey: string
  let freeKey: string

  beforeAll(async () => {
    dns = await startDnsServer()
    dir = await tempDir("ricochet-fuzz-")
    db = await createTestDatabase()
    ctl = await startControl({
      DATABASE_URL: db.url,
      NATS_URL: undefined,
      RICOCHET_DATA_DIR: dir,
      RICOCHET_SHORT_DOMAIN: SHORT_DOMAIN,
      RICOCHET_DNS_SERVERS: dns.server,
      NODE_OPTIONS: "--max-old-space-size=768"
    }, true)
    // Provisioned as the CLI does it, without a process per workspace.
    const sql = postgres(db.url, { max: 1, onnotice: () => {} })
    const onDatabase = <A, E>(effect: Effect.Effect<A, E, Database | OutboxSignal>) =>
      Effect.runPromise(effect.pipe(
        Effect.provideService(Database, { sql, kind: "postgres", queryTimeoutMs: undefined, outage: makeOutageLog() }),
        Effect.provideService(OutboxSignal, makeWakeSignal())
      ))
    const created: Array<ProvisionedWorkspace> = []
    try {
      for (let i = 0; i < WORKSPACES; i++) created.push(await onDatabase(createWorkspace({ name: `Fuzz ${i}`, plan: "business", shortDomain: SHORT_DOMAIN })))
      freeKey = (await onDatabase(createWorkspace({ name: "Fuzz free", plan: "free", shortDomain: SHORT_DOMAIN }))).apiKey
      memberKey = (await onDatabase(createKey({ workspaceId: created[0]!.workspace.id, role: "member" }))).apiKey
    } finally {
      await sql.end({ timeout: 5 })
    }
    const duck = await openDuckDb(1)
    try {
      for (const ws of created) {
        keys.push({ key: ws.apiKey, calls: [], analytics: [] })
        const api = apiClient(ctl.baseUrl, ws.apiKey)
        const [link, tag, folder, domains] = await Promise.all([
          api.post("/v1/links", { url: "https://example.com/seed", title: "seed" }),
          api.post("/v1/tags", { name: "seed" }),
          api.post("/v1/folders", { name: "seed" }),
          api.get("/v1/domains")
        ])
        knownIds.push(link.body.id, tag.body.id, folder.body.id, domains.body.data[0].id)
        // Clicks in every window, so analytics questions reach DuckDB.
        const at = Date.now() - 20 * 60_000
        const clicks = [0, 1].map((i) => clickRecord({ timestamp: at + i, workspaceId: ws.workspace.id, linkId: link.body.id, domain: ws.domain }))
        await writeClicksParquet(duck, clicks, path.join(dir, "clicks", partitionOf(at).dir, `seed-${ws.workspace.id}.parquet`))
      }
    } finally {
      duck.closeSync()
    }
    console.log(`fuzz: ${RUNS} requests over ${WORKSPACES} workspaces, seed ${SEED} (replay with RICOCHET_FUZZ_SEED=${SEED})`)
  })

  afterAll(async () => {
    await ctl?.stop()
    await db?.drop()
    await dns?.close()
    if (dir) await removeDir(dir)
  })

  /** The workspace key with the fewest calls in the last minute (for analytics, the fewest analytics calls). */
  const pickKey = (analytics: boolean) => {
    const now = Date.now()
    for (const k of keys) {
      k.calls = k.calls.filter((t) => now - t < 61_000)
      k.analytics = k.analytics.filter((t) => now - t < 61_000)
    }
    const best = [...keys].sort((a, b) => (analytics ? a.analytics.length - b.analytics.length : 0) || a.calls.length - b.calls.length)[0]
    best.calls.push(now)
    if (analytics) best.analytics.push(now)
    return best.key
  }

  const send = async (r: FuzzRequest) => {
    const target = `${r.endpoint.template.replace(":id", r.id)}${r.query === "" ? "" : `?${r.query}`}`
    const headers: Record<string, string> = { ...r.headers }
    const key = r.auth === "workspace" ? pickKey(r.endpoint.analytics) : r.auth === "member" ? memberKey : r.auth === "free" ? freeKey : undefined
    if (key !== undefined) headers.authorization = `Bearer ${key}`
    if (r.auth === "garbage") headers.authorization = "Bearer rico_0000000000000000000000000000000000000000"
    let body: BodyInit | undefined
    const b = r.shape.body
    if (b?.kind === "text") body = Buffer.from(b.text, b.encoding)
    else if (b?.kind === "bytes") body = Buffer.from(b.bytes)
    else if (b?.kind === "multipart") {
      const data = new FormData()
      for (const [name, value] of b.pairs) data.append(name, value)
      const response = new Response(data)
      body = new Uint8Array(await response.arrayBuffer())
      headers["content-type"] = response.headers.get("content-type")!
    }
    if (r.shape.contentType !== null && r.shape.contentType !== undefined && r.shape.contentType !== "") headers["content-type"] = r.shape.contentType
    const res = await fetch(`${ctl.baseUrl}${target}`, { method: r.endpoint.method, headers, body, signal: AbortSignal.timeout(60_000) })
    return { target, answer: { status: res.status, headers: res.headers, text: await res.text() } }
  }

  it("answers every request without a 5xx, stays up, and refuses only with the spec's error body", async () => {
    const statuses = new Map<number, number>()
    const hit = new Set<string>()
    await fc.assert(
      fc.asyncProperty(fuzzRequest, async (r) => {
        const { target, answer } = await send(r).catch((error: unknown) => {
          throw new Error(`no answer (${String(error)}); control ${ctl.child.exitCode === null ? "running" : `exited ${ctl.child.exitCode}`}\n${ctl.output().slice(-1500)}`)
        })
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1)
        hit.add(`${r.endpoint.method} ${r.endpoint.template}`)
        const where = () => `${describeRequest(r, target)}\n  → ${answer.status} ${answer.text.slice(0, 500)}`
        if (ctl.child.exitCode !== null) throw new Error(`control exited (${ctl.child.exitCode}) after\n${where()}`)
        if (answer.status >= 500) throw new Error(`a ${answer.status} for\n${where()}`)
        // Node's parser refused the request line before any handler: not counted, no RateLimit headers.
        const problem = answer.status >= 400 ? errorBodyProblem(answer, { rateLimitHeaders: answer.status !== 431 }) : successProblem(answer, `${r.endpoint.method} ${target}`)
        if (problem !== undefined) throw new Error(`${problem}, for\n${where()}`)
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true }
    )
    const total = [...statuses.values()].reduce((a, b) => a + b, 0)
    const summary = JSON.stringify(Object.fromEntries(statuses))
    console.log(`fuzz: statuses ${summary}`)
    // The suite tests the API, not the rate limiter: most answers come from the handlers.
    expect(statuses.get(429) ?? 0, summary).toBeLessThan(total * 0.25)
    for (const status of [400, 404, 422]) expect(statuses.get(status) ?? 0, `${status} in ${summary}`).toBeGreaterThan(0)
    expect((statuses.get(200) ?? 0) + (statuses.get(201) ?? 0), summary).toBeGreaterThan(0)
    if (RUNS >= 200) {
      const missed = API_ENDPOINTS.map((e) => `${e.method} ${e.template}`).filter((name) => !hit.has(name))
      expect(missed, "every endpoint of the API declaration was asked").toEqual([])
    }
    // Still the same process, still answering.
    expect((await fetch(`${ctl.baseUrl}/healthz`)).status).toBe(200)
  }, 20 * 60_000)
})
