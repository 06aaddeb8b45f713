import { describe, expect, it } from "vitest"
import { Result } from "effect"
import { PlanRequired, ValidationFailed } from "../../control/kernel/errors.ts"
import { type AbTestValue, checkLinkPlan, emptyToNull, mergeUtm, normalizeGeoRules, resolveAbTest } from "../../control/links/linkInput.ts"
import type { LinkCreate } from "../../control/links/schema.ts"
import { API_PLAN, atLeast, type Plan, PLAN_LIMITS, PLANS, requirePlan } from "../../control/kernel/plans.ts"

const URL0 = "https://example.com/landing"
const URL1 = "https://example.com/moved"
const B = "https://example.com/b"
const C = "https://example.com/c"

const abTest = { variants: [{ url: URL0, weight: 50 }, { url: B, weight: 50 }], endsAt: null }

/** Each "Basic and up" field with a value that uses it, and the empty value that does not. */
const basicFields: ReadonlyArray<readonly [field: string, used: unknown, empty: ReadonlyArray<unknown>]> = [
  ["openInApp", true, [false]],
  ["openInBrowser", true, [false]],
  ["geoRules", [{ country: "US", url: B }], [[]]],
  ["deviceRules", [{ device: "ios", url: B }], [[]]],
  ["expiresAt", "2030-01-31T12:00:00Z", [null]],
  ["password", "hunter2", [null, ""]]
]

const input = (fields: Record<string, unknown>) => ({ url: URL0, ...fields }) as LinkCreate

describe("checkLinkPlan", () => {
  describe.each(basicFields)("%s (Basic and up)", (field, used, empties) => {
    it("is refused on free with plan_required naming the field", () => {
      const error = checkLinkPlan("free", input({ [field]: used }))
      expect(error).toBeInstanceOf(PlanRequired)
      expect(error?.code).toBe("plan_required")
      expect(error?.status).toBe(403)
      expect(error?.message).toContain(field)
      expect(error?.message).toContain("basic")
    })

    it.each(["basic", "pro", "business"] as const)("is allowed on %s", (plan) => {
      expect(checkLinkPlan(plan, input({ [field]: used }))).toBeUndefined()
    })

    it.each(empties.map((e) => [JSON.stringify(e), e] as const))("set to its empty value %s is allowed on free", (_label, empty) => {
      expect(checkLinkPlan("free", input({ [field]: empty }))).toBeUndefined()
    })

    it("is refused on free next to other, ungated fields", () => {
      expect(checkLinkPlan("free", input({ title: "x", passQuery: true, redirectType: 301, [field]: used }))?.code).toBe("plan_required")
    })
  })

  describe("abTest (Pro)", () => {
    it.each<readonly [Plan, boolean]>([
      ["free", false],
      ["basic", false],
      ["pro", true],
      ["business", true]
    ])("on %s: allowed %s", (plan, allowed) => {
      const error = checkLinkPlan(plan, input({ abTest }))
      if (allowed) {
        expect(error).toBeUndefined()
      } else {
        expect(error?.code).toBe("plan_required")
        expect(error?.message).toContain("abTest")
        expect(error?.message).toContain("pro")
      }
    })

    it.each(PLANS)("abTest null is allowed on %s", (plan) => {
      expect(checkLinkPlan(plan, input({ abTest: null }))).toBeUndefined()
    })
  })

  it.each(PLANS)("a link with only ungated fields is allowed on %s", (plan) => {
    expect(checkLinkPlan(plan, input({ title: "t", passQuery: true, redirectType: 307, utm: { source: "x" }, tagIds: ["a"] })))
      .toBeUndefined()
  })

  it("an update that sends no gated field is allowed on free", () => {
    expect(checkLinkPlan("free", {})).toBeUndefined()
    expect(checkLinkPlan("free", { title: "new" })).toBeUndefined()
  })
})

describe("mergeUtm", () => {
  type Utm = Record<string, string> | null
  it.each<readonly [string, Utm, Record<string, string> | null | undefined, Utm]>([
    ["nothing sent, nothing stored", null, undefined, null],
    ["nothing sent keeps the stored set", { source: "a", medium: "b" }, undefined, { source: "a", medium: "b" }],
    ["null clears the set", { source: "a", medium: "b" }, null, null],
    ["null on nothing", null, null, null],
    ["set on an empty link", null, { source: "x" }, { source: "x" }],
    ["set replaces a value", { source: "a" }, { source: "b" }, { source: "b" }],
    ["set adds next to the stored keys", { source: "a" }, { medium: "m" }, { source: "a", medium: "m" }],
    ["absent keys stay", { source: "a", medium: "b", campaign: "c" }, { term: "t" }, { source: "a", medium: "b", campaign: "c", term: "t" }],
    ["empty value removes that key only", { source: "a", medium: "b" }, { source: "" }, { medium: "b" }],
    ["whitespace-only value removes it too", { source: "a", medium: "b" }, { medium: "  " }, { source: "a" }],
    ["removing the last key leaves null", { source: "a" }, { source: "" }, null],
    ["removing every key leaves null", { source: "a", ref: "r" }, { source: "", ref: "" }, null],
    ["removing a key that is not there", { source: "a" }, { medium: "" }, { source: "a" }],
    ["an empty value on nothing is null", null, { source: "" }, null],
    ["an empty object changes nothing", { source: "a" }, {}, { source: "a" }],
    ["an empty object on nothing is null", null, {}, null],
    ["set and remove at once", { source: "a", medium: "b" }, { source: "", campaign: "c", medium: "m" }, { medium: "m", campaign: "c" }]
  ])("%s", (_case, existing, sent, expected) => {
    const before = existing === null ? null : { ...existing }
    expect(mergeUtm(existing, sent)).toEqual(expected)
    expect(existing).toEqual(before) // the stored set is not mutated
  })

  it("returns a copy, not the stored object", () => {
    const stored = { source: "a" }
    const merged = mergeUtm(stored, undefined)
    expect(merged).toEqual(stored)
    expect(merged).not.toBe(stored)
  })
})

describe("resolveAbTest", () => {
  const existing: AbTestValue = { variants: [{ url: URL0, weight: 70 }, { url: B, weight: 30 }], endsAt: "2030-01-01T00:00:00Z" }

  it.each<readonly [string, string, AbTestValue, AbTestValue | undefined, AbTestValue]>([
    ["no test, none sent", URL0, null, undefined, null],
    ["no test, null sent", URL0, null, null, null],
    ["a test sent whose first variant is the url", URL0, null, abTest, abTest],
    ["five variants", URL0, null, {
      variants: [{ url: URL0, weight: 10 }, { url: B, weight: 20 }, { url: C, weight: 30 }, { url: B + "2", weight: 40 }, { url: C + "2", weight: 100 }],
      endsAt: "2031-01-01T00:00:00Z"
    }, {
      variants: [{ url: URL0, weight: 10 }, { url: B, weight: 20 }, { url: C, weight: 30 }, { url: B + "2", weight: 40 }, { url: C + "2", weight: 100 }],
      endsAt: "2031-01-01T00:00:00Z"
    }],
    ["the stored test kept when nothing is sent", URL0, existing, undefined, existing],
    ["the first variant follows a url change", URL1, existing, undefined, {
      variants: [{ url: URL1, weight: 70 }, { url: B, weight: 30 }],
      endsAt: "2030-01-01T00:00:00Z"
    }],
    ["null removes the stored test", URL0, existing, null, null],
    ["a new test replaces the stored one", URL0, existing, abTest, abTest],
    ["a new test with the new url after a url change", URL1, existing, {
      variants: [{ url: URL1, weight: 40 }, { url: C, weight: 60 }],
      endsAt: null
    }, { variants: [{ url: URL1, weight: 40 }, { url: C, weight: 60 }], endsAt: null }]
  ])("%s", (_case, url, stored, sent, expected) => {
    expect(resolveAbTest(url, stored, sent)).toEqual(Result.succeed(expected))
  })

  it.each<readonly [string, string, AbTestValue, AbTestValue]>([
    ["first variant is another url", URL0, null, { variants: [{ url: B, weight: 50 }, { url: URL0, weight: 50 }], endsAt: null }],
    ["first variant differs by a trailing slash", URL0, null, { variants: [{ url: URL0 + "/", weight: 50 }, { url: B, weight: 50 }], endsAt: null }],
    ["the old url after a url change", URL1, existing, { variants: [{ url: URL0, weight: 50 }, { url: B, weight: 50 }], endsAt: null }]
  ])("refused: %s", (_case, url, stored, sent) => {
    const result = resolveAbTest(url, stored, sent)
    expect(Result.isFailure(result)).toBe(true)
    const error = Result.isFailure(result) ? result.failure : undefined
    expect(error).toBeInstanceOf(ValidationFailed)
    if (error === undefined) return
    expect(error.code).toBe("unprocessable_entity")
    expect(error.status).toBe(422)
    expect(error.issues?.map((i) => i.path)).toEqual([["abTest", "variants", 0, "url"]])
  })

  it("does not mutate the stored test when following a url change", () => {
    const stored = { variants: [{ url: URL0, weight: 70 }, { url: B, weight: 30 }], endsAt: null }
    resolveAbTest(URL1, stored, undefined)
    expect(stored.variants[0].url).toBe(URL0)
  })
})

describe("normalizeGeoRules", () => {
  it.each<readonly [string, ReadonlyArray<{ country: string; url: string }>, ReadonlyArray<{ country: string; url: string }>]>([
    ["none", [], []],
    ["upper-case kept", [{ country: "US", url: B }], [{ country: "US", url: B }]],
    ["lower-case raised", [{ country: "fr", url: B }], [{ country: "FR", url: B }]],
    ["mixed case raised, urls untouched", [{ country: "dE", url: "https://Example.com/Path" }, { country: "gb", url: C }], [
      { country: "DE", url: "https://Example.com/Path" },
      { country: "GB", url: C }
    ]]
  ])("%s", (_case, rules, expected) => {
    expect(normalizeGeoRules(rules)).toEqual(expected)
  })
})

describe("emptyToNull", () => {
  it.each<readonly [string | null | undefined, string | null | undefined]>([
    ["", null],
    [null, null],
    [undefined, undefined],
    ["x", "x"],
    [" ", " "]
  ])("%j → %j", (value, expected) => {
    expect(emptyToNull(value)).toBe(expected)
  })
})

describe("plans", () => {
  it.each<readonly [Plan, Plan, boolean]>([
    ["free", "free", true],
    ["free", "basic", false],
    ["free", "pro", false],
    ["free", "business", false],
    ["basic", "free", true],
    ["basic", "basic", true],
    ["basic", "pro", false],
    ["basic", "business", false],
    ["pro", "free", true],
    ["pro", "basic", true],
    ["pro", "pro", true],
    ["pro", "business", false],
    ["business", "free", true],
    ["business", "basic", true],
    ["business", "pro", true],
    ["business", "business", true]
  ])("atLeast(%s, %s) is %s", (plan, needed, expected) => {
    expect(atLeast(plan, needed)).toBe(expected)
  })

  it.each<readonly [Plan, Plan, boolean]>([
    ["free", "pro", false],
    ["basic", "pro", false],
    ["pro", "pro", true],
    ["business", "pro", true],
    ["free", "basic", false],
    ["basic", "basic", true]
  ])("requirePlan(%s, %s) passes: %s", (plan, needed, passes) => {
    const error = requirePlan(plan, needed, "The feature")
    if (passes) {
      expect(error).toBeUndefined()
    } else {
      expect(error?.code).toBe("plan_required")
      expect(error?.status).toBe(403)
      expect(error?.message).toContain("The feature")
      expect(error?.message).toContain(needed)
      expect(error?.message).toContain(plan)
    }
  })

  it("the API needs pro", () => {
    expect(API_PLAN).toBe("pro")
  })

  it.each<readonly [Plan, number]>([
    ["free", 30],
    ["basic", 365],
    ["pro", 1095],
    ["business", 1825]
  ])("%s keeps %i days of analytics history", (plan, days) => {
    expect(PLAN_LIMITS[plan].analyticsHistoryDays).toBe(days)
  })

  it("every plan has limits, and higher plans never have lower ones", () => {
    expect(Object.keys(PLAN_LIMITS).sort()).toEqual([...PLANS].sort())
    for (const resource of ["links", "tags", "folders", "customDomains", "analyticsHistoryDays"] as const) {
      for (let i = 1; i < PLANS.length; i++) {
        expect(PLAN_LIMITS[PLANS[i]][resource]).toBeGreaterThanOrEqual(PLAN_LIMITS[PLANS[i - 1]][resource])
      }
    }
  })
})
