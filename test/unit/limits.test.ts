import { describe, expect, it } from "vitest"
import { Result } from "effect"
import { parseFormText as parseForm } from "../../control/http/formText.ts"
import { jsonShapeProblem, MAX_DEPTH, MAX_FORM_ARRAY_ITEMS, MAX_FORM_FIELDS, MAX_JSON_VALUES } from "../../control/kernel/limits.ts"

/** The shape bounds of a request (control/kernel/limits.ts) and how form parsing enforces them. */

const nestedJson = (levels: number) => `{"a":${"[".repeat(levels)}${"]".repeat(levels)}}`
const array = (n: number) => `{"a":[${Array.from({ length: n }, () => "0").join(",")}]}`

describe("jsonShapeProblem", () => {
  it.each<readonly [string, string, RegExp | undefined]>([
    ["an empty object", "{}", undefined],
    ["the deepest allowed nesting", nestedJson(MAX_DEPTH), undefined],
    ["one level more", nestedJson(MAX_DEPTH + 1), /deeper than 5 levels/],
    ["500,000 levels", nestedJson(500_000), /deeper than 5 levels/],
    ["brackets inside strings do not nest", `{"a":"${"[".repeat(100)}"}`, undefined],
    ["escaped quotes do not end a string", `{"a":"\\"[[[[[[[[[[\\""}`, undefined],
    ["as many values as allowed", array(MAX_JSON_VALUES - 1), undefined],
    ["one value more", array(MAX_JSON_VALUES), /more than 10000 values/],
    ["commas inside strings are not values", `{"a":"${",".repeat(20_000)}"}`, undefined],
    ["empty containers hold no values", `{"a":[${Array.from({ length: 4000 }, () => "[]").join(",")}]}`, undefined],
    ["members count as values too", `{${Array.from({ length: MAX_JSON_VALUES + 1 }, (_, i) => `"k${i}":1`).join(",")}}`, /more than 10000 values/],
    ["invalid JSON is left to JSON.parse", "{[", undefined]
  ])("%s", (_case, text, problem) => {
    const found = jsonShapeProblem(text)
    if (problem === undefined) expect(found).toBeUndefined()
    else expect(found).toMatch(problem)
  })
})

/** The tree, or (Result.getOrThrow) the 400 thrown. */
const parseFormText = (...args: Parameters<typeof parseForm>) => Result.getOrThrow(parseForm(...args))

describe("parseFormText bounds (400 bad_request, never a silent cut)", () => {
  const refused = (text: string, what: "form body" | "query string" = "form body") => {
    const result = parseForm(text, what)
    return Result.isFailure(result) ? result.failure : undefined
  }
  it.each<readonly [string, string, RegExp]>([
    ["a key nested 6 levels", "a[b][c][d][e][f][g]=1", /nests deeper than 5 levels/],
    ["a key nested 100,000 levels", `utm${"[a]".repeat(100_000)}=1`, /nests deeper than 5 levels/],
    ["more than 1,000 fields", Array.from({ length: MAX_FORM_FIELDS + 1 }, (_, i) => `f${i}=1`).join("&"), /more than 1000 fields/],
    ["an index of 300", "tagIds[300]=a", /array of more than 300 items/],
    ["301 repeated keys", Array.from({ length: MAX_FORM_ARRAY_ITEMS + 1 }, () => "tagIds=a").join("&"), /array of more than 300 items/],
    ["301 bracket items", Array.from({ length: MAX_FORM_ARRAY_ITEMS + 1 }, () => "tagIds[]=a").join("&"), /array of more than 300 items/],
    ["an escape that is not UTF-8", "title=%ff", /not percent-encoded utf-8/],
    ["a key that is not UTF-8", "%C3=x", /not percent-encoded utf-8/]
  ])("%s", (_case, text, message) => {
    const error = refused(text)
    expect(error?.code).toBe("bad_request")
    expect(error?.message).toMatch(message)
  })

  it.each<readonly [string, string, unknown]>([
    ["5 levels", "a[b][c][d][e][f]=1", { a: { b: { c: { d: { e: { f: "1" } } } } } }],
    ["1,000 fields", Array.from({ length: MAX_FORM_FIELDS }, (_, i) => `f${i}=1`).join("&"), Object.fromEntries(Array.from({ length: MAX_FORM_FIELDS }, (_, i) => [`f${i}`, "1"]))],
    ["index 299", "tagIds[299]=a", { tagIds: ["a"] }],
    ["300 repeated keys", Array.from({ length: MAX_FORM_ARRAY_ITEMS }, () => "tagIds=a").join("&"), { tagIds: Array.from({ length: MAX_FORM_ARRAY_ITEMS }, () => "a") }],
    ["a stray percent sign", "title=100%&b=%zz", { title: "100%", b: "%zz" }],
    ["plus is a space, %2B a plus", "title=a+b%2Bc", { title: "a b+c" }],
    ["a byte-order mark inside a value stays", "title=%EF%BB%BFx", { title: "\ufeffx" }],
    ["encoded brackets nest like plain ones", "utm%5Bsource%5D=x", { utm: { source: "x" } }]
  ])("accepts %s", (_case, text, expected) => {
    expect(parseFormText(text)).toEqual(expected)
  })

  it("reads a query string without its leading question mark", () => {
    expect(parseFormText("?limit=5&tagIds=a", "query string")).toEqual({ limit: "5", tagIds: "a" })
    expect(refused("a[b][c][d][e][f][g]=1", "query string")?.message).toMatch(/^The query string nests/)
  })

  it("decodes escapes in the form's charset", () => {
    expect(parseFormText("name=Gr%FC%DFe", "form body", "iso-8859-1")).toEqual({ name: "Grüße" })
    expect(parseFormText("name=Gr%C3%BC%C3%9Fe", "form body", "utf-8")).toEqual({ name: "Grüße" })
    expect(refused("name=%82%A0")).toBeDefined()
    expect(parseFormText("name=%82%A0", "form body", "shift_jis")).toEqual({ name: "あ" })
  })
})
