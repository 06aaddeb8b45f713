import { Exit, Result, Schema } from "effect"
import { describe, expect, it } from "vitest"
import type { FieldIssue } from "../../control/kernel/errors.ts"
import { parseFormText } from "../../control/http/formText.ts"
import { toFieldIssues } from "../../control/kernel/issues.ts"
import { FolderCreate, FolderUpdate } from "../../control/folders/schema.ts"
import { LinkCreate, LinkInfoQuery, LinkUpdate, ListLinksQuery } from "../../control/links/schema.ts"
import { TagCreate, TagUpdate } from "../../control/tags/schema.ts"

// Bodies are decoded as the API decodes them (control/kernel/RequestChecks.ts): unknown fields are errors and
// every issue is reported. Query strings ignore unknown parameters (caches and proxies add some).
const BODY = { onExcessProperty: "error", errors: "all" } as const
const QUERY = { onExcessProperty: "ignore", errors: "all" } as const

type Path = ReadonlyArray<string | number>
type Outcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly issues: ReadonlyArray<FieldIssue>; readonly raw: string }

const decode = (
  schema: Schema.Codec<any, any, never, never>,
  input: unknown,
  options: typeof BODY | typeof QUERY = BODY
): Outcome => {
  const result = Schema.decodeUnknownResult(schema)(input, options)
  return Result.isSuccess(result)
    ? { ok: true, value: result.success }
    : { ok: false, issues: toFieldIssues(result.failure.issue), raw: result.failure.message }
}

const issuesOf = (outcome: Outcome): ReadonlyArray<FieldIssue> => {
  if (outcome.ok) throw new Error(`expected a rejection, got ${JSON.stringify(outcome.value)}`)
  return outcome.issues
}

/** Accepted inputs decode to themselves: these schemas do not transform. */
const expectAccepted = (outcome: Outcome, input: unknown) => {
  expect(outcome.ok ? "accepted" : JSON.stringify(outcome.issues)).toBe("accepted")
  if (outcome.ok) expect(outcome.value).toEqual(input)
}

/** Rejected with an issue at exactly `path`, and nothing reported outside that top-level field. */
const expectRejectedAt = (outcome: Outcome, path: Path) => {
  const issues = issuesOf(outcome)
  expect(issues.map((i) => i.path)).toContainEqual(path)
  for (const issue of issues) expect(issue.path[0]).toBe(path[0])
}

const URL0 = "https://example.com/landing"
const OTHER = "https://example.org/other"
const variant = (n: number, weight = 20) => ({ url: n === 0 ? URL0 : `https://example.com/v${n}`, weight })
const variants = (count: number) => Array.from({ length: count }, (_, i) => variant(i))
const geo = (country: string, url = OTHER) => ({ country, url })
const device = (d: string, url = OTHER) => ({ device: d, url })

type Case = readonly [name: string, fields: Record<string, unknown>, expected: "ok" | Path]

/** Fields both create and update accept, with the same rules. */
const inputFieldCases: ReadonlyArray<Case> = [
  // title, description, password: the spec's length limits
  ["title of 200 characters", { title: "t".repeat(200) }, "ok"],
  ["title of 201 characters", { title: "t".repeat(201) }, ["title"]],
  ["title null", { title: null }, "ok"],
  ["title as a number", { title: 5 }, ["title"]],
  ["description of 500 characters", { description: "d".repeat(500) }, "ok"],
  ["description of 501 characters", { description: "d".repeat(501) }, ["description"]],
  ["password of 128 characters", { password: "p".repeat(128) }, "ok"],
  ["password of 129 characters", { password: "p".repeat(129) }, ["password"]],
  ["password null (removes it)", { password: null }, "ok"],
  ["password as a number", { password: 1234 }, ["password"]],

  // slug: letters, digits, - and _, case-sensitive, 1 to 190 (docs/decisions.md#identifiers-and-slugs)
  ["slug with letters, digits, - and _", { slug: "Abc-DEF_123" }, "ok"],
  ["slug of only digits", { slug: "12345" }, "ok"],
  ["slug of 1 character", { slug: "a" }, "ok"],
  ["slug of 190 characters", { slug: "s".repeat(190) }, "ok"],
  ["slug of 191 characters", { slug: "s".repeat(191) }, ["slug"]],
  ["empty slug", { slug: "" }, ["slug"]],
  ["slug with a dot", { slug: "a.b" }, ["slug"]],
  ["slug with a slash", { slug: "a/b" }, ["slug"]],
  ["slug with a space", { slug: "a b" }, ["slug"]],
  ["slug with a percent sign", { slug: "a%20b" }, ["slug"]],
  ["slug with a non-ASCII letter", { slug: "caf\u00e9" }, ["slug"]],
  ["slug null", { slug: null }, ["slug"]],

  // URI fields: absolute http(s) only
  ["expiredUrl http", { expiredUrl: "http://example.com/gone" }, "ok"],
  ["expiredUrl https with query and fragment", { expiredUrl: "https://example.com/a?b=c#d" }, "ok"],
  ["expiredUrl null", { expiredUrl: null }, "ok"],
  ["expiredUrl javascript:", { expiredUrl: "javascript:alert(1)" }, ["expiredUrl"]],
  ["expiredUrl ftp:", { expiredUrl: "ftp://example.com/file" }, ["expiredUrl"]],
  ["expiredUrl relative path", { expiredUrl: "/gone" }, ["expiredUrl"]],
  ["expiredUrl without scheme", { expiredUrl: "example.com/gone" }, ["expiredUrl"]],
  ["expiredUrl empty", { expiredUrl: "" }, ["expiredUrl"]],

  // ogImageUrl: empty string or URI
  ["ogImageUrl empty string", { ogImageUrl: "" }, "ok"],
  ["ogImageUrl https", { ogImageUrl: "https://cdn.example.com/card.png" }, "ok"],
  ["ogImageUrl null", { ogImageUrl: null }, "ok"],
  ["ogImageUrl ftp:", { ogImageUrl: "ftp://cdn.example.com/card.png" }, ["ogImageUrl"]],
  ["ogImageUrl data:", { ogImageUrl: "data:image/png;base64,AAAA" }, ["ogImageUrl"]],
  ["ogImageUrl relative", { ogImageUrl: "card.png" }, ["ogImageUrl"]],

  // redirectType: one of 301, 302, 307, 308
  ...[301, 302, 307, 308].map((code): Case => [`redirectType ${code}`, { redirectType: code }, "ok"]),
  ...[300, 303, 304, 200].map((code): Case => [`redirectType ${code}`, { redirectType: code }, ["redirectType"]]),
  ["redirectType as a string in JSON", { redirectType: "302" }, ["redirectType"]],

  // booleans
  ["passQuery true", { passQuery: true }, "ok"],
  ["passQuery as a string in JSON", { passQuery: "true" }, ["passQuery"]],
  ["openInApp false", { openInApp: false }, "ok"],
  ["openInBrowser true", { openInBrowser: true }, "ok"],
  ["openInBrowser 1", { openInBrowser: 1 }, ["openInBrowser"]],

  // folderId, tagIds
  ["folderId", { folderId: "fld_abc" }, "ok"],
  ["folderId null (no folder)", { folderId: null }, "ok"],
  ["folderId empty", { folderId: "" }, ["folderId"]],
  ["tagIds empty (removes all tags)", { tagIds: [] }, "ok"],
  ["tagIds of two", { tagIds: ["tag_a", "tag_b"] }, "ok"],
  ["tagIds as a bare string in JSON", { tagIds: "tag_a" }, ["tagIds"]],
  ["tagIds with an empty id", { tagIds: ["tag_a", ""] }, ["tagIds", 1]],

  // utm: the six keys, empty value allowed (it removes the parameter)
  ...["source", "medium", "campaign", "term", "content", "ref"].map((key): Case => [`utm ${key}`, { utm: { [key]: "x" } }, "ok"]),
  ["utm with all six keys", { utm: { source: "a", medium: "b", campaign: "c", term: "d", content: "e", ref: "f" } }, "ok"],
  ["utm with an empty value", { utm: { source: "" } }, "ok"],
  ["utm null (clears)", { utm: null }, "ok"],
  ["utm with an unknown key", { utm: { source: "x", utm_source: "y" } }, ["utm", "utm_source"]],
  ["utm with a number value", { utm: { campaign: 2025 } }, ["utm", "campaign"]],
  ["utm as an array", { utm: ["source"] }, ["utm"]],

  // geoRules: country of exactly 2 characters, url required
  ["geoRules empty", { geoRules: [] }, "ok"],
  ["geoRules with two countries", { geoRules: [geo("US"), geo("FR")] }, "ok"],
  ["geoRules lower-case country", { geoRules: [geo("de")] }, "ok"],
  ["geoRules country of 1 character", { geoRules: [geo("U")] }, ["geoRules", 0, "country"]],
  ["geoRules country of 3 characters", { geoRules: [geo("USA")] }, ["geoRules", 0, "country"]],
  ["geoRules empty country", { geoRules: [geo("")] }, ["geoRules", 0, "country"]],
  ["geoRules second rule bad country", { geoRules: [geo("US"), geo("FRA")] }, ["geoRules", 1, "country"]],
  ["geoRules duplicate country", { geoRules: [geo("US"), geo("FR"), geo("US")] }, ["geoRules", 2]],
  ["geoRules duplicate country, other case", { geoRules: [geo("US"), geo("us")] }, ["geoRules", 1]],
  ["geoRules rule without url", { geoRules: [{ country: "US" }] }, ["geoRules", 0, "url"]],
  ["geoRules rule without country", { geoRules: [{ url: OTHER }] }, ["geoRules", 0, "country"]],
  ["geoRules rule with a javascript: url", { geoRules: [geo("US", "javascript:alert(1)")] }, ["geoRules", 0, "url"]],
  ["geoRules rule with an extra field", { geoRules: [{ ...geo("US"), weight: 1 }] }, ["geoRules", 0, "weight"]],
  ["geoRules as an object", { geoRules: { US: OTHER } }, ["geoRules"]],

  // deviceRules: ios, android, desktop
  ...["ios", "android", "desktop"].map((d): Case => [`deviceRules ${d}`, { deviceRules: [device(d)] }, "ok"]),
  ["deviceRules all three", { deviceRules: [device("ios"), device("android"), device("desktop")] }, "ok"],
  ...["tablet", "mobile", "iOS", "Android", ""].map((d): Case => [
    `deviceRules device ${JSON.stringify(d)}`,
    { deviceRules: [device(d)] },
    ["deviceRules", 0, "device"]
  ]),
  ["deviceRules duplicate device", { deviceRules: [device("ios"), device("ios", URL0)] }, ["deviceRules", 1]],
  ["deviceRules rule without url", { deviceRules: [{ device: "ios" }] }, ["deviceRules", 0, "url"]],
  ["deviceRules rule with an ftp: url", { deviceRules: [device("android", "ftp://x.example")] }, ["deviceRules", 0, "url"]],

  // expiresAt: UTC with a trailing Z, optional fractional seconds, a real date
  ["expiresAt with Z", { expiresAt: "2030-01-31T12:00:00Z" }, "ok"],
  ["expiresAt with milliseconds", { expiresAt: "2030-01-31T12:00:00.123Z" }, "ok"],
  ["expiresAt with one fractional digit", { expiresAt: "2030-01-31T12:00:00.5Z" }, "ok"],
  ["expiresAt with nanoseconds", { expiresAt: "2030-01-31T12:00:00.123456789Z" }, "ok"],
  ["expiresAt on 29 February of a leap year", { expiresAt: "2028-02-29T00:00:00Z" }, "ok"],
  ["expiresAt at the last second of a year", { expiresAt: "2030-12-31T23:59:59Z" }, "ok"],
  ["expiresAt null", { expiresAt: null }, "ok"],
  ["expiresAt without Z", { expiresAt: "2030-01-31T12:00:00" }, ["expiresAt"]],
  ["expiresAt with +01:00", { expiresAt: "2030-01-31T12:00:00+01:00" }, ["expiresAt"]],
  ["expiresAt with +00:00", { expiresAt: "2030-01-31T12:00:00+00:00" }, ["expiresAt"]],
  ["expiresAt with -05:00", { expiresAt: "2030-01-31T12:00:00-05:00" }, ["expiresAt"]],
  ["expiresAt as a date only", { expiresAt: "2030-01-31" }, ["expiresAt"]],
  ["expiresAt with a space instead of T", { expiresAt: "2030-01-31 12:00:00Z" }, ["expiresAt"]],
  ["expiresAt with lower-case t and z", { expiresAt: "2030-01-31t12:00:00z" }, ["expiresAt"]],
  ["expiresAt with an empty fraction", { expiresAt: "2030-01-31T12:00:00.Z" }, ["expiresAt"]],
  ["expiresAt on 30 February", { expiresAt: "2030-02-30T00:00:00Z" }, ["expiresAt"]],
  ["expiresAt on 29 February of a common year", { expiresAt: "2030-02-29T00:00:00Z" }, ["expiresAt"]],
  ["expiresAt on 31 April", { expiresAt: "2030-04-31T00:00:00Z" }, ["expiresAt"]],
  ["expiresAt in month 13", { expiresAt: "2030-13-01T00:00:00Z" }, ["expiresAt"]],
  ["expiresAt at hour 24", { expiresAt: "2030-01-01T24:00:00Z" }, ["expiresAt"]],
  ["expiresAt at minute 60", { expiresAt: "2030-01-01T12:60:00Z" }, ["expiresAt"]],
  ["expiresAt at second 60", { expiresAt: "2030-01-01T12:00:60Z" }, ["expiresAt"]],
  ["expiresAt as epoch milliseconds", { expiresAt: 1_900_000_000_000 }, ["expiresAt"]],
  ["expiresAt empty", { expiresAt: "" }, ["expiresAt"]],

  // abTest: 2 to 5 variants, integer weights 10 to 100, endsAt required (null allowed)
  ["abTest null", { abTest: null }, "ok"],
  ["abTest with 2 variants", { abTest: { variants: variants(2), endsAt: null } }, "ok"],
  ["abTest with 5 variants", { abTest: { variants: variants(5), endsAt: null } }, "ok"],
  ["abTest with 1 variant", { abTest: { variants: variants(1), endsAt: null } }, ["abTest", "variants"]],
  ["abTest with 6 variants", { abTest: { variants: variants(6), endsAt: null } }, ["abTest", "variants"]],
  ["abTest with no variants", { abTest: { variants: [], endsAt: null } }, ["abTest", "variants"]],
  ["abTest weight 9", { abTest: { variants: [variant(0), variant(1, 9)], endsAt: null } }, ["abTest", "variants", 1, "weight"]],
  ["abTest weight 10", { abTest: { variants: [variant(0, 10), variant(1, 10)], endsAt: null } }, "ok"],
  ["abTest weight 100", { abTest: { variants: [variant(0, 100), variant(1, 100)], endsAt: null } }, "ok"],
  ["abTest weight 101", { abTest: { variants: [variant(0), variant(1, 101)], endsAt: null } }, ["abTest", "variants", 1, "weight"]],
  ["abTest weight 50.5", { abTest: { variants: [variant(0), variant(1, 50.5)], endsAt: null } }, ["abTest", "variants", 1, "weight"]],
  ["abTest weight as a string", { abTest: { variants: [variant(0), { url: OTHER, weight: "50" }], endsAt: null } }, [
    "abTest",
    "variants",
    1,
    "weight"
  ]],
  ["abTest variant without weight", { abTest: { variants: [variant(0), { url: OTHER }], endsAt: null } }, ["abTest", "variants", 1, "weight"]],
  ["abTest variant without url", { abTest: { variants: [variant(0), { weight: 50 }], endsAt: null } }, ["abTest", "variants", 1, "url"]],
  ["abTest variant with an ftp: url", { abTest: { variants: [variant(0), { url: "ftp://x.example", weight: 50 }], endsAt: null } }, [
    "abTest",
    "variants",
    1,
    "url"
  ]],
  ["abTest endsAt a UTC date-time", { abTest: { variants: variants(2), endsAt: "2030-06-01T00:00:00Z" } }, "ok"],
  ["abTest without endsAt", { abTest: { variants: variants(2) } }, ["abTest", "endsAt"]],
  ["abTest endsAt with an offset", { abTest: { variants: variants(2), endsAt: "2030-06-01T00:00:00+02:00" } }, ["abTest", "endsAt"]],
  ["abTest endsAt an impossible date", { abTest: { variants: variants(2), endsAt: "2030-02-30T00:00:00Z" } }, ["abTest", "endsAt"]],
  ["abTest without variants", { abTest: { endsAt: null } }, ["abTest", "variants"]],
  ["abTest with an unknown field", { abTest: { variants: variants(2), endsAt: null, startsAt: null } }, ["abTest", "startsAt"]],

  // unknown fields, including the response-only ones
  ["an unknown field", { colour: "red" }, ["colour"]],
  ["hasPassword (response only)", { hasPassword: true }, ["hasPassword"]],
  ["shortLink (response only)", { shortLink: "https://s.example/x" }, ["shortLink"]],
  ["tags (response only)", { tags: [] }, ["tags"]],
  ["id (response only)", { id: "lnk_x" }, ["id"]]
]

describe.each([
  ["LinkCreate", LinkCreate, { url: URL0 }],
  ["LinkUpdate", LinkUpdate, {}]
] as const)("%s input fields", (_name, schema, base) => {
  it.each(inputFieldCases)("%s", (_case, fields, expected) => {
    const input = { ...base, ...fields }
    const outcome = decode(schema, input)
    if (expected === "ok") expectAccepted(outcome, input)
    else expectRejectedAt(outcome, expected)
  })
})

describe("LinkCreate only", () => {
  it.each<Case>([
    ["url http", { url: "http://example.com" }, "ok"],
    ["url https with path and query", { url: "https://example.com/a/b?c=d&e=f" }, "ok"],
    ["url with a port", { url: "https://example.com:8443/x" }, "ok"],
    ["url javascript:", { url: "javascript:alert(document.cookie)" }, ["url"]],
    ["url ftp:", { url: "ftp://example.com/file" }, ["url"]],
    ["url data:", { url: "data:text/html,<script>alert(1)</script>" }, ["url"]],
    ["url mailto:", { url: "mailto:someone@example.com" }, ["url"]],
    ["url relative path", { url: "/landing" }, ["url"]],
    ["url protocol-relative", { url: "//example.com/landing" }, ["url"]],
    ["url without host", { url: "https://" }, ["url"]],
    ["url empty", { url: "" }, ["url"]],
    ["url null", { url: null }, ["url"]],
    ["url missing", {}, ["url"]],
    ["domain given", { url: URL0, domain: "go.example.com" }, "ok"],
    ["domain empty", { url: URL0, domain: "" }, ["domain"]]
  ])("%s", (_case, input, expected) => {
    const outcome = decode(LinkCreate, input)
    if (expected === "ok") expectAccepted(outcome, input)
    else expectRejectedAt(outcome, expected)
  })
})

describe("LinkUpdate only", () => {
  it.each<Case>([
    ["an empty update", {}, "ok"],
    ["url alone", { url: OTHER }, "ok"],
    ["url javascript:", { url: "javascript:alert(1)" }, ["url"]],
    ["url relative", { url: "landing" }, ["url"]],
    ["url null (url cannot be removed)", { url: null }, ["url"]],
    ["domain (fixed at creation)", { domain: "go.example.com" }, ["domain"]],
    ["domain next to valid fields", { title: "x", domain: "go.example.com" }, ["domain"]]
  ])("%s", (_case, input, expected) => {
    const outcome = decode(LinkUpdate, input)
    if (expected === "ok") expectAccepted(outcome, input)
    else expectRejectedAt(outcome, expected)
  })
})

describe("issue paths and codes (toFieldIssues)", () => {
  it.each<readonly [string, typeof LinkCreate | typeof LinkUpdate, Record<string, unknown>, ReadonlyArray<{ path: Path; code: string }>]>([
    ["missing url", LinkCreate, {}, [{ path: ["url"], code: "required" }]],
    ["unknown top-level field", LinkCreate, { url: URL0, colour: "red" }, [{ path: ["colour"], code: "unknown_field" }]],
    ["domain on update", LinkUpdate, { domain: "go.example.com" }, [{ path: ["domain"], code: "unknown_field" }]],
    ["unknown utm key (inside a nullable field)", LinkUpdate, { utm: { foo: "x" } }, [{ path: ["utm", "foo"], code: "unknown_field" }]],
    ["abTest without endsAt (inside a nullable field)", LinkUpdate, { abTest: { variants: variants(2) } }, [
      { path: ["abTest", "endsAt"], code: "required" }
    ]],
    ["geo rule without url", LinkUpdate, { geoRules: [{ country: "US" }] }, [{ path: ["geoRules", 0, "url"], code: "required" }]],
    ["geo rule country of 3 letters", LinkUpdate, { geoRules: [geo("US"), geo("USA")] }, [
      { path: ["geoRules", 1, "country"], code: "invalid_value" }
    ]],
    ["weight 9 in the second variant", LinkUpdate, { abTest: { variants: [variant(0), variant(1, 9)], endsAt: null } }, [
      { path: ["abTest", "variants", 1, "weight"], code: "invalid_value" }
    ]],
    // The same kind of violation gets the same code whether or not the field is nullable.
    ["slug too long (not nullable)", LinkUpdate, { slug: "s".repeat(191) }, [{ path: ["slug"], code: "invalid_value" }]],
    ["title too long (nullable)", LinkUpdate, { title: "t".repeat(201) }, [{ path: ["title"], code: "invalid_value" }]],
    ["title of the wrong type", LinkUpdate, { title: 42 }, [{ path: ["title"], code: "invalid_type" }]],
    ["several problems at once", LinkCreate, { colour: "red", geoRules: [{ country: "USA", url: OTHER }] }, [
      { path: ["colour"], code: "unknown_field" },
      { path: ["url"], code: "required" },
      { path: ["geoRules", 0, "country"], code: "invalid_value" }
    ]]
  ])("%s", (_case, schema, input, expected) => {
    const issues = issuesOf(decode(schema, input))
    expect(issues.map(({ path, code }) => ({ path, code }))).toEqual(expect.arrayContaining([...expected]))
    expect(issues).toHaveLength(expected.length)
    for (const issue of issues) expect(issue.message).toMatch(/\S/)
  })

  it("required and unknown fields have fixed messages", () => {
    const issues = issuesOf(decode(LinkCreate, { colour: "red" }))
    expect(issues).toEqual(expect.arrayContaining([
      { path: ["url"], message: "Required", code: "required" },
      { path: ["colour"], message: "Unknown field", code: "unknown_field" }
    ]))
  })

  it("decodeUnknownExit fails with the same issue tree", () => {
    const exit = Schema.decodeUnknownExit(LinkCreate)({ url: URL0, geoRules: [geo("X")] }, BODY)
    expect(Exit.isFailure(exit)).toBe(true)
    if (Exit.isFailure(exit)) {
      const error = exit.cause.reasons.flatMap((r) => (r._tag === "Fail" ? [r.error] : []))[0]
      expect(toFieldIssues(error.issue).map((i) => i.path)).toEqual([["geoRules", 0, "country"]])
    }
  })

  it("a prefix is put in front of every path", () => {
    const result = Schema.decodeUnknownResult(LinkUpdate)({ title: 1, utm: { x: "y" } }, BODY)
    if (Result.isSuccess(result)) throw new Error("expected a failure")
    expect(toFieldIssues(result.failure.issue, ["body"]).map((i) => i.path)).toEqual([["body", "title"], ["body", "utm", "x"]])
  })
})

describe("a submitted password never appears in an error", () => {
  const SECRET = "Tr0ub4dor&3-correct-horse-battery-staple"
  const longSecret = (SECRET + "-").repeat(4).slice(0, 129)
  it.each<readonly [string, unknown]>([
    ["129 characters", longSecret],
    ["1000 characters", SECRET.repeat(30)],
    ["inside an array", [SECRET]],
    ["inside an object", { value: SECRET }]
  ])("password %s", (_case, password) => {
    const outcome = decode(LinkCreate, { url: URL0, password })
    const issues = issuesOf(outcome)
    expect(issues.map((i) => i.path)).toEqual([["password"]])
    // What a client would see (the pipeline builds its message from the first issue) and what a log would see.
    const first = issues[0]
    const clientMessage = `Invalid request at ${first.path.join(".")}: ${first.message}`
    for (const text of [JSON.stringify(issues), clientMessage, outcome.ok ? "" : outcome.raw]) {
      expect(text).not.toContain(SECRET)
      expect(text).not.toContain(SECRET.slice(0, 8))
    }
  })
})

describe.each([
  ["TagCreate", TagCreate],
  ["TagUpdate", TagUpdate]
] as const)("%s", (name, schema) => {
  const isCreate = name === "TagCreate"
  it.each<Case>([
    ["name of 0 characters", { name: "" }, ["name"]],
    ["name of 1 character", { name: "a" }, "ok"],
    ["name of 32 characters", { name: "n".repeat(32) }, "ok"],
    ["name of 33 characters", { name: "n".repeat(33) }, ["name"]],
    ["name as a number", { name: 7 }, ["name"]],
    ["name null", { name: null }, ["name"]],
    ...["blue", "teal", "purple", "pink"].map((color): Case => [`color ${color}`, { name: "x", color }, "ok"]),
    ...["red", "Blue", ""].map((color): Case => [`color ${JSON.stringify(color)}`, { name: "x", color }, ["color"]]),
    ["color null", { name: "x", color: null }, isCreate ? ["color"] : "ok"],
    ["an unknown field", { name: "x", id: "tag_1" }, ["id"]],
    ["no name", { color: "blue" }, isCreate ? ["name"] : "ok"],
    ["empty body", {}, isCreate ? ["name"] : "ok"]
  ])("%s", (_case, input, expected) => {
    const outcome = decode(schema, input)
    if (expected === "ok") expectAccepted(outcome, input)
    else expectRejectedAt(outcome, expected)
  })
})

describe.each([
  ["FolderCreate", FolderCreate],
  ["FolderUpdate", FolderUpdate]
] as const)("%s", (_name, schema) => {
  it.each<Case>([
    ["name of 0 characters", { name: "" }, ["name"]],
    ["name of 1 character", { name: "f" }, "ok"],
    ["name of 64 characters", { name: "f".repeat(64) }, "ok"],
    ["name of 65 characters", { name: "f".repeat(65) }, ["name"]],
    ["name null", { name: null }, ["name"]],
    ["no name (required on both)", {}, ["name"]],
    ["an unknown field", { name: "f", color: "blue" }, ["color"]]
  ])("%s", (_case, input, expected) => {
    const outcome = decode(schema, input)
    if (expected === "ok") expectAccepted(outcome, input)
    else expectRejectedAt(outcome, expected)
  })
})

describe("ListLinksQuery", () => {
  it.each<Case>([
    ["no parameters", {}, "ok"],
    ["search of 100 characters", { search: "q".repeat(100) }, "ok"],
    ["search of 101 characters", { search: "q".repeat(101) }, ["search"]],
    ["limit 0", { limit: 0 }, ["limit"]],
    ["limit 1", { limit: 1 }, "ok"],
    ["limit 100", { limit: 100 }, "ok"],
    ["limit 101", { limit: 101 }, ["limit"]],
    ["limit -1", { limit: -1 }, ["limit"]],
    ["limit 1.5", { limit: 1.5 }, ["limit"]],
    ["tagIds as one string", { tagIds: "tag_a" }, "ok"],
    ["tagIds comma-separated", { tagIds: "tag_a,tag_b" }, "ok"],
    ["tagIds as an array", { tagIds: ["tag_a", "tag_b"] }, "ok"],
    ["domain, folderId and cursor", { domain: "go.example.com", folderId: "fld_1", cursor: "abc" }, "ok"]
  ])("%s", (_case, input, expected) => {
    const outcome = decode(ListLinksQuery, input, QUERY)
    if (expected === "ok") expectAccepted(outcome, input)
    else expectRejectedAt(outcome, expected)
  })

  // The way a query string is read: qs's tree (control/http/RequestChecksLayer.ts), then the
  // library's decoder: the declaration reads it as a string tree, and a single value stands for an array.
  const fromQuery = (query: string) =>
    decode(Schema.toCodecArrayFromSingle(Schema.toCodecStringTree(ListLinksQuery)), Result.getOrThrow(parseFormText(query, "query string")), QUERY)

  // Each row: the query string, then the decoded value or the path of the rejected parameter.
  it.each<readonly [query: string, expected: { value: unknown } | { path: Path }]>([
    ["limit=50", { value: { limit: 50 } }],
    ["limit=1", { value: { limit: 1 } }],
    ["limit=100", { value: { limit: 100 } }],
    ["limit=0", { path: ["limit"] }],
    ["limit=101", { path: ["limit"] }],
    ["limit=abc", { path: ["limit"] }],
    ["limit=2.5", { path: ["limit"] }],
    ["search=12345", { value: { search: "12345" } }],
    ["search=true", { value: { search: "true" } }],
    [`search=${"q".repeat(100)}`, { value: { search: "q".repeat(100) } }],
    [`search=${"q".repeat(101)}`, { path: ["search"] }],
    ["tagIds=a,b", { value: { tagIds: "a,b" } }],
    ["tagIds=a&tagIds=b", { value: { tagIds: ["a", "b"] } }],
    ["utm_source=newsletter&limit=5", { value: { limit: 5 } }]
  ])("?%s", (query, expected) => {
    const outcome = fromQuery(query)
    if ("value" in expected) expectAccepted(outcome, expected.value)
    else expectRejectedAt(outcome, expected.path)
  })
})

describe("LinkInfoQuery", () => {
  it.each<readonly [name: string, input: Record<string, unknown>, expected: "ok" | { path: Path; code: string | null }]>([
    ["domain and slug", { domain: "go.example.com", slug: "abc" }, "ok"],
    ["missing slug", { domain: "go.example.com" }, { path: ["slug"], code: "required" }],
    ["missing domain", { slug: "abc" }, { path: ["domain"], code: "required" }],
    ["empty slug", { domain: "go.example.com", slug: "" }, { path: ["slug"], code: null }],
    ["empty domain", { domain: "", slug: "abc" }, { path: ["domain"], code: null }]
  ])("%s", (_case, input, expected) => {
    const outcome = decode(LinkInfoQuery, input, QUERY)
    if (expected === "ok") return expectAccepted(outcome, input)
    expectRejectedAt(outcome, expected.path)
    if (expected.code !== null) expect(issuesOf(outcome).find((i) => i.path[0] === expected.path[0])?.code).toBe(expected.code)
  })
})

// The spec counts "characters": code points, as JSON Schema's maxLength does, not UTF-16 code
// units, so names and titles of emoji or CJK extension ideographs get their full length.
describe("lengths are counted in characters (code points)", () => {
  const astral = "\u{1F600}" // one character, two UTF-16 code units
  it.each<readonly [string, typeof TagCreate | typeof FolderCreate | typeof LinkUpdate, Record<string, unknown>]>([
    ["tag name of 32 emoji", TagCreate, { name: astral.repeat(32) }],
    ["folder name of 64 emoji", FolderCreate, { name: astral.repeat(64) }],
    ["link title of 200 emoji", LinkUpdate, { title: astral.repeat(200) }]
  ])("%s is accepted", (_case, schema, input) => {
    expectAccepted(decode(schema, input), input)
  })
  it.each<readonly [string, typeof TagCreate | typeof FolderCreate | typeof LinkUpdate, Record<string, unknown>]>([
    ["tag name of 33 emoji", TagCreate, { name: astral.repeat(33) }],
    ["folder name of 65 emoji", FolderCreate, { name: astral.repeat(65) }],
    ["link title of 201 emoji", LinkUpdate, { title: astral.repeat(201) }]
  ])("%s is rejected", (_case, schema, input) => {
    expect(decode(schema, input).ok).toBe(false)
  })
})
