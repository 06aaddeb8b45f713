import { describe, expect, it } from "vitest"
import { findUnsafeText, NUL_MESSAGE, SURROGATE_MESSAGE, textProblem } from "../../control/kernel/nul.ts"

/** Text PostgreSQL cannot store as sent (control/kernel/nul.ts): NUL and lone UTF-16 surrogates. */

describe("textProblem", () => {
  it.each<readonly [string, string | undefined]>([
    ["", undefined],
    ["plain", undefined],
    ["Grüße 😀", undefined],
    ["\ufffd", undefined],
    ["\u0000", NUL_MESSAGE],
    ["a\u0000b", NUL_MESSAGE],
    ["\ud800", SURROGATE_MESSAGE],
    ["a\udc00", SURROGATE_MESSAGE],
    ["\ud83d\ude00\ud83d", SURROGATE_MESSAGE],
    ["\ude00\ud83d", SURROGATE_MESSAGE]
  ])("%j", (text, expected) => {
    expect(textProblem(text)).toBe(expected)
  })
})

describe("findUnsafeText", () => {
  it.each<readonly [string, unknown, unknown]>([
    ["nothing to find", { a: "x", b: [1, true, null, { c: "y" }] }, undefined],
    ["a top-level string", "\u0000", { path: [], message: NUL_MESSAGE, code: "invalid_value" }],
    ["a field", { url: "https://a.com", title: "\u0000x" }, { path: ["title"], message: NUL_MESSAGE, code: "invalid_value" }],
    ["a nested field", { utm: { source: "a\u0000" } }, { path: ["utm", "source"], message: NUL_MESSAGE, code: "invalid_value" }],
    ["an array item", { geoRules: [{ country: "US", url: "u" }, { country: "F\u0000", url: "u" }] }, {
      path: ["geoRules", 1, "country"],
      message: NUL_MESSAGE,
      code: "invalid_value"
    }],
    ["a key", { "a\u0000": "x" }, { path: ["a\u0000"], message: NUL_MESSAGE, code: "invalid_value" }],
    ["a lone surrogate", { tagIds: ["ok", "\ud800"] }, { path: ["tagIds", 1], message: SURROGATE_MESSAGE, code: "invalid_value" }],
    ["the first one in document order", { a: "\u0000", b: "\u0000" }, { path: ["a"], message: NUL_MESSAGE, code: "invalid_value" }]
  ])("%s", (_case, value, expected) => {
    expect(findUnsafeText(value)).toEqual(expected)
  })
})
