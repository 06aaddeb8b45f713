import { describe, expect, it } from "vitest"
import { encodedParams, overlayQuery, queryAsSent, utmPairs, visitorParams } from "../../engine/rules/query.ts"

/** engine/rules/query.ts: the visitor's query passed as sent, overrides by decoded key, nothing that leaves the query. */

describe("queryAsSent", () => {
  it.each([
    ["plain", "a=1&b=2", "a=1&b=2"],
    ["empty", "", ""],
    ["%ff stays (not decoded and re-encoded)", "q=%ff", "q=%ff"],
    ["percent escapes keep their case", "q=%Fe%fE", "q=%Fe%fE"],
    ["a lone % stays", "q=100%", "q=100%"],
    ["@ and ? and / stay", "@evil.com?x=/y", "@evil.com?x=/y"],
    ["+ stays", "q=a+b", "q=a+b"],
    ["' ( ) * ! ~ stay", "q='()*!~", "q='()*!~"],
    ["# is encoded: it would start the fragment", "a=1#x", "a=1%23x"],
    ["space is encoded", "q=a b", "q=a%20b"],
    ["CR and LF are encoded", "x=\r\nSet-Cookie: a=1", "x=%0D%0ASet-Cookie:%20a=1"],
    ["NUL is encoded", "x=\u0000", "x=%00"],
    ["quotes and angle brackets are encoded", 'x="<b>"', "x=%22%3Cb%3E%22"],
    ["DEL is encoded", "x=\u007f", "x=%7F"],
    ["non-ASCII as UTF-8", "q=é", "q=%C3%A9"],
    ["astral characters as one UTF-8 sequence", "q=😀", "q=%F0%9F%98%80"],
    ["the replacement character uWS gives for invalid UTF-8", "q=\ufffd", "q=%EF%BF%BD"],
    ["a lone surrogate becomes U+FFFD's bytes", "q=\ud800", "q=%EF%BF%BD"]
  ])("%s", (_name, query, expected) => {
    expect(queryAsSent(query)).toBe(expected)
  })
})

describe("visitorParams", () => {
  it.each<readonly [string, string, ReadonlyArray<{ key: string; text: string }>]>([
    ["empty", "", []],
    ["pairs as sent", "a=1&b=2", [{ key: "a", text: "a=1" }, { key: "b", text: "b=2" }]],
    ["a key without value", "flag", [{ key: "flag", text: "flag" }]],
    ["an empty value", "b=", [{ key: "b", text: "b=" }]],
    ["an empty key is a parameter too", "=x", [{ key: "", text: "=x" }]],
    ["empty segments are dropped", "a=1&&b=2&", [{ key: "a", text: "a=1" }, { key: "b", text: "b=2" }]],
    ["%ff in key and value kept; the key compares raw when it does not decode", "%ff=%ff", [{ key: "%ff", text: "%ff=%ff" }]],
    ["encoded key compares decoded", "utm%5Fsource=x", [{ key: "utm_source", text: "utm%5Fsource=x" }]],
    ["+ in a key is a space for comparison", "a+b=1", [{ key: "a b", text: "a+b=1" }]],
    ["only the first = splits", "a=b=c", [{ key: "a", text: "a=b=c" }]],
    ["@evil.com is a key", "@evil.com", [{ key: "@evil.com", text: "@evil.com" }]],
    ["# inside a segment is encoded", "a=1#b=2", [{ key: "a", text: "a=1%23b=2" }]],
    ["raw non-ASCII key compares as its decoded self", "é=1", [{ key: "é", text: "%C3%A9=1" }]]
  ])("%s", (_name, query, expected) => {
    expect(visitorParams(query)).toEqual(expected)
  })
})

describe("overlayQuery", () => {
  const utm = (pairs: ReadonlyArray<readonly [string, string]>) => encodedParams(pairs)
  it.each<readonly [string, string, ReadonlyArray<{ key: string; text: string }>, string]>([
    ["nothing to set", "https://a.example/x?k=1#f", [], "https://a.example/x?k=1#f"],
    ["replaces in place and appends, fragment last", "https://a.example/x?k=1#f", utm([["k", "2"], ["n", "3"]]), "https://a.example/x?k=2&n=3#f"],
    ["utm values are encoded", "https://a.example/", utm([["utm_source", "a b&c=d"]]), "https://a.example/?utm_source=a%20b%26c%3Dd"],
    ["the visitor's param over the destination's, as sent", "https://a.example/x?q=1&k=2", visitorParams("q=%ff"), "https://a.example/x?q=%ff&k=2"],
    ["a key given twice keeps both, in the first place", "https://a.example/x?t=0&k=2&t=9", visitorParams("t=a&t=b"), "https://a.example/x?t=a&t=b&k=2"],
    ["keys match decoded on both sides", "https://a.example/x?utm_source=old", visitorParams("utm%5Fsource=new"), "https://a.example/x?utm%5Fsource=new"],
    ["destination's own query kept as written", "https://app.example/?/route/1&q=a%20b", visitorParams("z=1"), "https://app.example/?/route/1&q=a%20b&z=1"],
    ["@evil.com stays after the ?", "https://a.example/p", visitorParams("@evil.com"), "https://a.example/p?@evil.com"],
    ["@evil.com after a host without path stays in the query", "https://a.example", visitorParams("@evil.com"), "https://a.example?@evil.com"],
    ["a raw # cannot move the fragment", "https://a.example/p#frag", visitorParams("x=1#y"), "https://a.example/p?x=1%23y#frag"]
  ])("%s", (_name, url, params, expected) => {
    const result = overlayQuery(url, params)
    expect(result).toBe(expected)
    // Nothing a visitor sends changes where the URL points.
    const parsed = new URL(result)
    const original = new URL(url)
    expect([parsed.host, parsed.pathname, parsed.hash]).toEqual([original.host, original.pathname, original.hash])
    expect(result).toMatch(/^[\x21-\x7e]+$/)
  })

  it("utmPairs: a stable order, empty values and unknown keys left out", () => {
    expect(utmPairs(null)).toEqual([])
    expect(utmPairs({ medium: "m", source: "s", ref: "r", unknown: "u", term: "" })).toEqual([["utm_source", "s"], ["utm_medium", "m"], ["ref", "r"]])
  })
})
