import { Result, Schema } from "effect"
import { UrlParams } from "effect/http"
import { afterEach, describe, expect, it } from "vitest"
import { coerce } from "../../control/kernel/coerce.ts"
import { formBody } from "../../control/kernel/formBody.ts"
import { formEntriesToTree } from "../../control/http/formText.ts"
import { formTree } from "../../control/kernel/formTree.ts"
import { toFieldIssues } from "../../control/kernel/issues.ts"
import { LinkCreate, LinkUpdate, ListLinksQuery } from "../../control/links/schema.ts"

const BODY = { onExcessProperty: "error", errors: "all" } as const

/** The fields of a urlencoded body as effect/http-api hands them to a payload schema. */
const fieldsOf = (body: string) => UrlParams.toRecord(UrlParams.fromInput(new URLSearchParams(body)))
const tree = (body: string) => formTree(fieldsOf(body))
const enc = encodeURIComponent

describe("formTree of the fields the library reads, as qs reads the text", () => {
  it.each<readonly [string, unknown]>([
    ["url=https%3A%2F%2Fexample.com", { url: "https://example.com" }],
    [`geoRules[0][country]=US&geoRules[0][url]=${enc("https://example.com/us")}`, {
      geoRules: [{ country: "US", url: "https://example.com/us" }]
    }],
    [`geoRules[0][country]=US&geoRules[0][url]=u1&geoRules[1][country]=FR&geoRules[1][url]=u2`, {
      geoRules: [{ country: "US", url: "u1" }, { country: "FR", url: "u2" }]
    }],
    ["geoRules[1][country]=FR&geoRules[0][country]=US", { geoRules: [{ country: "US" }, { country: "FR" }] }],
    ["geoRules[7][country]=US", { geoRules: [{ country: "US" }] }],
    ["utm[source]=x", { utm: { source: "x" } }],
    ["utm[source]=x&utm[medium]=y&utm[campaign]=", { utm: { source: "x", medium: "y", campaign: "" } }],
    ["tagIds[]=a&tagIds[]=b", { tagIds: ["a", "b"] }],
    ["tagIds=a&tagIds=b", { tagIds: ["a", "b"] }],
    ["tagIds=a&tagIds=b&tagIds=c", { tagIds: ["a", "b", "c"] }],
    ["tagIds=a", { tagIds: "a" }],
    ["tagIds[1]=b&tagIds[0]=a", { tagIds: ["a", "b"] }],
    ["abTest[variants][0][url]=u&abTest[variants][0][weight]=50&abTest[endsAt]=", {
      abTest: { variants: [{ url: "u", weight: "50" }], endsAt: "" }
    }],
    ["title=&password=", { title: "", password: "" }],
    // every leaf stays a string here; types come from coerce
    ["redirectType=301&passQuery=true", { redirectType: "301", passQuery: "true" }],
    // malformed brackets, as qs reads them
    ["a[b=x", { a: { "[b": "x" } }],
    ["a]=y", { "a]": "y" }],
    ["[x]=z", { x: "z" }],
    ["utm[source]x=w", { utm: { source: "w" } }],
    ["geoRules[0=US", { geoRules: { "[0": "US" } }],
    // ignored keys
    ["=x&url=u", { url: "u" }],
    ["__proto__=x&url=u", { url: "u" }]
  ])("%s", (body, expected) => {
    expect(tree(body)).toEqual(expected)
    // What the bounds check reads when the request arrives is the same shape.
    expect(Result.getOrThrow(formEntriesToTree(new URLSearchParams(body).entries()))).toEqual(expected)
  })

  describe("never writes to a prototype", () => {
    afterEach(() => {
      delete (Object.prototype as Record<string, unknown>).polluted
    })
    it.each<readonly [string, unknown]>([
      ["__proto__[polluted]=yes&url=u", { url: "u" }],
      ["utm[__proto__][polluted]=yes&url=u", { url: "u" }],
      ["geoRules[0][__proto__][polluted]=yes&url=u", { url: "u" }],
      // Keys that name Object.prototype's own properties are dropped too (qs's allowPrototypes: false).
      ["a[constructor][prototype][polluted]=yes", {}],
      ["constructor[prototype][polluted]=yes", {}],
      ["utm[toString][polluted]=yes", {}]
    ])("%s", (body, expected) => {
      const result = tree(body)
      expect(({} as Record<string, unknown>).polluted).toBeUndefined()
      expect(Object.getPrototypeOf(result)).toBe(Object.prototype)
      expect((result as Record<string, unknown>).polluted).toBeUndefined()
      expect(JSON.parse(JSON.stringify(result))).toEqual(expected)
    })
  })
})

describe("coerce guided by LinkCreate", () => {
  it.each<readonly [string, Record<string, unknown>, Record<string, unknown>]>([
    // numbers where the schema wants numbers
    ["redirectType 301", { redirectType: "301" }, { redirectType: 301 }],
    ["redirectType 303 (a number, refused later)", { redirectType: "303" }, { redirectType: 303 }],
    ["redirectType not a number", { redirectType: "permanent" }, { redirectType: "permanent" }],
    ["bracketed variant weights", { abTest: { variants: [{ url: "u", weight: "60" }, { url: "v", weight: "40" }], endsAt: "" } }, {
      abTest: { variants: [{ url: "u", weight: 60 }, { url: "v", weight: 40 }], endsAt: null }
    }],
    ["fractional weight", { abTest: { variants: [{ url: "u", weight: "12.5" }] } }, { abTest: { variants: [{ url: "u", weight: 12.5 }] } }],
    // but never for string fields
    ["slug of digits", { slug: "12345" }, { slug: "12345" }],
    ["title true", { title: "true" }, { title: "true" }],
    ["title 42", { title: "42" }, { title: "42" }],
    ["title starting with a bracket", { title: "[draft] launch" }, { title: "[draft] launch" }],
    ["title that is JSON", { title: "{\"a\":1}" }, { title: "{\"a\":1}" }],
    ["password of digits", { password: "123456" }, { password: "123456" }],
    ["utm value of digits", { utm: { campaign: "2025" } }, { utm: { campaign: "2025" } }],
    ["geo country and url", { geoRules: [{ country: "US", url: "1" }] }, { geoRules: [{ country: "US", url: "1" }] }],
    ["folderId of digits", { folderId: "123" }, { folderId: "123" }],
    // booleans
    ["passQuery true", { passQuery: "true" }, { passQuery: true }],
    ["openInApp false", { openInApp: "false" }, { openInApp: false }],
    ["openInBrowser TRUE (not a boolean)", { openInBrowser: "TRUE" }, { openInBrowser: "TRUE" }],
    ["passQuery 1 (not a boolean)", { passQuery: "1" }, { passQuery: "1" }],
    // empty value for a nullable field means null
    ["folderId empty", { folderId: "" }, { folderId: null }],
    ["expiresAt empty", { expiresAt: "" }, { expiresAt: null }],
    ["password empty", { password: "" }, { password: null }],
    ["title empty", { title: "" }, { title: null }],
    ["expiredUrl empty", { expiredUrl: "" }, { expiredUrl: null }],
    ["abTest empty", { abTest: "" }, { abTest: null }],
    ["utm empty", { utm: "" }, { utm: null }],
    ["abTest endsAt empty", { abTest: { endsAt: "" } }, { abTest: { endsAt: null } }],
    // ...but not for a field that cannot be null
    ["slug empty", { slug: "" }, { slug: "" }],
    ["passQuery empty", { passQuery: "" }, { passQuery: "" }],
    ["utm source empty (removes it)", { utm: { source: "" } }, { utm: { source: "" } }],
    // one plain value for an array field
    ["a single tagIds", { tagIds: "a" }, { tagIds: ["a"] }],
    ["repeated tagIds", { tagIds: ["a", "b"] }, { tagIds: ["a", "b"] }],
    ["tag id of digits", { tagIds: "42" }, { tagIds: ["42"] }],
    // JSON strings in a field
    ["geoRules as JSON", { geoRules: "[{\"country\":\"US\",\"url\":\"https://example.com/us\"}]" }, {
      geoRules: [{ country: "US", url: "https://example.com/us" }]
    }],
    ["deviceRules as JSON with spaces", { deviceRules: "  [{\"device\":\"ios\",\"url\":\"https://a.example\"}]" }, {
      deviceRules: [{ device: "ios", url: "https://a.example" }]
    }],
    ["abTest as JSON", { abTest: "{\"variants\":[{\"url\":\"u\",\"weight\":50}],\"endsAt\":null}" }, {
      abTest: { variants: [{ url: "u", weight: 50 }], endsAt: null }
    }],
    ["utm as JSON", { utm: "{\"source\":\"x\"}" }, { utm: { source: "x" } }],
    ["tagIds as JSON", { tagIds: "[\"a\",\"b\"]" }, { tagIds: ["a", "b"] }],
    ["broken JSON stays a string", { geoRules: "[{\"country\":" }, { geoRules: "[{\"country\":" }],
    ["JSON nested past the body bounds stays a string", { geoRules: `${"[".repeat(7)}${"]".repeat(7)}` }, { geoRules: `${"[".repeat(7)}${"]".repeat(7)}` }],
    ["JSON at the bounds is parsed", { geoRules: `${"[".repeat(6)}${"]".repeat(6)}` }, { geoRules: [[[[[[]]]]]] }],
    // fields the schema does not know are left alone (and refused by the decoder)
    ["unknown field", { colour: "5" }, { colour: "5" }]
  ])("%s", (_case, input, expected) => {
    expect(coerce(LinkCreate.ast, input)).toEqual(expected)
  })

  it("coerces query parameters for ListLinksQuery", () => {
    expect(coerce(ListLinksQuery.ast, { limit: "50", search: "100", tagIds: "a,b", cursor: "123" }))
      .toEqual({ limit: 50, search: "100", tagIds: "a,b", cursor: "123" })
  })
})

describe("a form body decodes to the same value as the equivalent JSON", () => {
  const URL0 = "https://example.com/landing"
  // As effect/http-api decodes a urlencoded body with the endpoint's form schema (it takes a
  // single value where an array is declared), and a multipart body's fields as they are.
  const decodeForm = (schema: typeof LinkCreate | typeof LinkUpdate, body: string) => {
    const urlencoded = Schema.decodeUnknownResult(Schema.toCodecArrayFromSingle(formBody(schema)))(fieldsOf(body), BODY)
    const multipart = Schema.decodeUnknownResult(formBody(schema))(fieldsOf(body), BODY)
    expect(Result.isSuccess(multipart) ? multipart.success : toFieldIssues(multipart.failure.issue))
      .toEqual(Result.isSuccess(urlencoded) ? urlencoded.success : toFieldIssues(urlencoded.failure.issue))
    return urlencoded
  }

  it.each<readonly [string, string, Record<string, unknown>]>([
    ["url only", `url=${enc(URL0)}`, { url: URL0 }],
    ["scalars", `url=${enc(URL0)}&slug=12345&title=true&redirectType=308&passQuery=true&openInApp=false`, {
      url: URL0,
      slug: "12345",
      title: "true",
      redirectType: 308,
      passQuery: true,
      openInApp: false
    }],
    ["bracketed rules", `url=${enc(URL0)}&geoRules[0][country]=US&geoRules[0][url]=${enc("https://us.example")}` +
      `&geoRules[1][country]=fr&geoRules[1][url]=${enc("https://fr.example")}` +
      `&deviceRules[0][device]=ios&deviceRules[0][url]=${enc("https://ios.example")}`, {
      url: URL0,
      geoRules: [{ country: "US", url: "https://us.example" }, { country: "fr", url: "https://fr.example" }],
      deviceRules: [{ device: "ios", url: "https://ios.example" }]
    }],
    ["rules as JSON", `url=${enc(URL0)}&geoRules=${enc(JSON.stringify([{ country: "US", url: "https://us.example" }]))}`, {
      url: URL0,
      geoRules: [{ country: "US", url: "https://us.example" }]
    }],
    ["bracketed utm", `url=${enc(URL0)}&utm[source]=news&utm[medium]=email&utm[campaign]=`, {
      url: URL0,
      utm: { source: "news", medium: "email", campaign: "" }
    }],
    ["tagIds[]", `url=${enc(URL0)}&tagIds[]=tag_a&tagIds[]=tag_b`, { url: URL0, tagIds: ["tag_a", "tag_b"] }],
    ["repeated tagIds", `url=${enc(URL0)}&tagIds=tag_a&tagIds=tag_b`, { url: URL0, tagIds: ["tag_a", "tag_b"] }],
    ["single tagIds", `url=${enc(URL0)}&tagIds=tag_a`, { url: URL0, tagIds: ["tag_a"] }],
    ["empty tagIds clears the list", `url=${enc(URL0)}&tagIds=`, { url: URL0, tagIds: [] }],
    ["bracketed abTest", `url=${enc(URL0)}&abTest[variants][0][url]=${enc(URL0)}&abTest[variants][0][weight]=70` +
      `&abTest[variants][1][url]=${enc("https://b.example")}&abTest[variants][1][weight]=30&abTest[endsAt]=`, {
      url: URL0,
      abTest: { variants: [{ url: URL0, weight: 70 }, { url: "https://b.example", weight: 30 }], endsAt: null }
    }],
    ["abTest as JSON", `url=${enc(URL0)}&abTest=${
      enc(JSON.stringify({ variants: [{ url: URL0, weight: 50 }, { url: "https://b.example", weight: 50 }], endsAt: "2030-01-01T00:00:00Z" }))
    }`, {
      url: URL0,
      abTest: { variants: [{ url: URL0, weight: 50 }, { url: "https://b.example", weight: 50 }], endsAt: "2030-01-01T00:00:00Z" }
    }],
    ["empty nullable fields", `url=${enc(URL0)}&folderId=&expiresAt=&password=&expiredUrl=&utm=&abTest=`, {
      url: URL0,
      folderId: null,
      expiresAt: null,
      password: null,
      expiredUrl: null,
      utm: null,
      abTest: null
    }],
    ["ogImageUrl and expiry", `url=${enc(URL0)}&ogImageUrl=${enc("https://cdn.example/c.png")}&expiresAt=2030-01-31T12:00:00.5Z`, {
      url: URL0,
      ogImageUrl: "https://cdn.example/c.png",
      expiresAt: "2030-01-31T12:00:00.5Z"
    }]
  ])("%s", (_case, body, json) => {
    const fromJson = Schema.decodeUnknownResult(LinkCreate)(json, BODY)
    const fromForm = decodeForm(LinkCreate, body)
    expect(Result.isSuccess(fromJson)).toBe(true)
    expect(Result.isSuccess(fromForm) ? fromForm.success : toFieldIssues(fromForm.failure.issue)).toEqual(json)
    if (Result.isSuccess(fromJson)) expect(fromJson.success).toEqual(json)
  })

  it.each<readonly [string, typeof LinkCreate | typeof LinkUpdate, string, ReadonlyArray<string | number>, string]>([
    ["redirectType 303", LinkCreate, `url=${enc(URL0)}&redirectType=303`, ["redirectType"], "invalid_type"],
    ["3-letter country in brackets", LinkCreate, `url=${enc(URL0)}&geoRules[0][country]=USA&geoRules[0][url]=${enc(URL0)}`, [
      "geoRules",
      0,
      "country"
    ], "invalid_value"],
    ["weight 9 in brackets", LinkUpdate, `abTest[variants][0][url]=${enc(URL0)}&abTest[variants][0][weight]=50` +
      `&abTest[variants][1][url]=${enc(URL0)}&abTest[variants][1][weight]=9&abTest[endsAt]=`, ["abTest", "variants", 1, "weight"], "invalid_value"],
    ["malformed bracket key", LinkCreate, `url=${enc(URL0)}&geoRules[0=US`, ["geoRules"], "invalid_type"],
    ["domain on update", LinkUpdate, "domain=go.example.com", ["domain"], "unknown_field"],
    ["empty slug", LinkUpdate, "slug=", ["slug"], "invalid_value"],
    ["passQuery yes", LinkUpdate, "passQuery=yes", ["passQuery"], "invalid_type"],
    ["missing url", LinkCreate, "title=x", ["url"], "required"]
  ])("form rejection: %s", (_case, schema, body, path, code) => {
    const result = decodeForm(schema, body)
    if (Result.isSuccess(result)) throw new Error(`expected a rejection, got ${JSON.stringify(result.success)}`)
    expect(toFieldIssues(result.failure.issue).map((i) => ({ path: i.path, code: i.code }))).toEqual([{ path, code }])
  })
})
