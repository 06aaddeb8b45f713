import { describe, expect, it } from "vitest"
import { decodeText, knownEncoding, parseContentType, percentDecode, TextDecodingError } from "../../control/kernel/charset.ts"

/** Request text in its declared charset (control/kernel/charset.ts): strict, never silently replaced. */

describe("parseContentType", () => {
  it.each<readonly [string | undefined, unknown]>([
    [undefined, { mediaType: "", charset: undefined }],
    ["", { mediaType: "", charset: undefined }],
    ["application/json", { mediaType: "application/json", charset: undefined }],
    ["Application/JSON; Charset=UTF-16", { mediaType: "application/json", charset: "UTF-16" }],
    ['application/x-www-form-urlencoded; charset="iso-8859-1"', { mediaType: "application/x-www-form-urlencoded", charset: "iso-8859-1" }],
    ["multipart/form-data; boundary=x", { mediaType: "multipart/form-data", charset: undefined }],
    ["json", undefined],
    ["/", undefined],
    ["a b/c", undefined]
  ])("%j", (header, expected) => {
    expect(parseContentType(header)).toEqual(expected)
  })
})

describe("decodeText", () => {
  const utf16le = Buffer.from('{"t":"Grüße 😀"}', "utf16le")
  it.each<readonly [string, Uint8Array, string | undefined, string]>([
    ["utf-8 by default", Buffer.from("Grüße"), undefined, "Grüße"],
    ["a UTF-8 byte-order mark is dropped", Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]), undefined, "{}"],
    ["utf-16le", utf16le, "utf-16le", '{"t":"Grüße 😀"}'],
    ["utf-16 with a big-endian mark", Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(utf16le).swap16()]), "UTF-16", '{"t":"Grüße 😀"}'],
    ["utf-16 with a little-endian mark", Buffer.concat([Buffer.from([0xff, 0xfe]), utf16le]), "utf-16", '{"t":"Grüße 😀"}'],
    ["utf-16 without a mark is little-endian", utf16le, "utf-16", '{"t":"Grüße 😀"}'],
    ["iso-8859-1", Buffer.from([0x47, 0x72, 0xfc, 0xdf, 0x65]), "iso-8859-1", "Grüße"],
    ["latin1", Buffer.from([0x47, 0x72, 0xfc, 0xdf, 0x65]), "latin1", "Grüße"]
  ])("%s", (_case, bytes, charset, expected) => {
    expect(decodeText(bytes, charset)).toBe(expected)
  })

  it.each<readonly [string, Uint8Array, string | undefined, RegExp]>([
    ["a byte that is not UTF-8", Buffer.from([0x7b, 0xff, 0x7d]), undefined, /not valid utf-8 text/],
    ["a truncated UTF-8 sequence", Buffer.from([0xc3]), "utf-8", /not valid utf-8 text/],
    ["an odd number of UTF-16 bytes with a lone surrogate", Buffer.from([0x00, 0xd8]), "utf-16le", /not valid utf-16le text/],
    ["an unknown charset", Buffer.from("x"), "klingon", /Unsupported charset "klingon"/]
  ])("refuses %s", (_case, bytes, charset, message) => {
    expect(() => decodeText(bytes, charset)).toThrow(TextDecodingError)
    expect(() => decodeText(bytes, charset)).toThrow(message)
  })

  it("names known encodings as WHATWG does", () => {
    expect(knownEncoding("UTF8")).toBe("utf-8")
    expect(knownEncoding("latin1")).toBe("windows-1252")
    expect(() => knownEncoding("x-unknown")).toThrow(TextDecodingError)
  })
})

describe("percentDecode", () => {
  it.each<readonly [string, string, string]>([
    ["a+b", "utf-8", "a b"],
    ["%2B", "utf-8", "+"],
    ["%C3%BC%20x", "utf-8", "ü x"],
    ["100%", "utf-8", "100%"],
    ["%zz%4", "utf-8", "%zz%4"],
    ["%00", "utf-8", "\u0000"],
    ["%F0%9F%98%80", "utf-8", "😀"],
    ["%FC", "iso-8859-1", "ü"],
    ["%EF%BB%BFa", "utf-8", "\ufeffa"]
  ])("%j in %s → %j", (text, charset, expected) => {
    expect(percentDecode(text, charset)).toBe(expected)
  })

  it.each(["%ff", "%C3", "%ED%A0%80", "a%C3%28"])("refuses %j (not UTF-8)", (text) => {
    expect(() => percentDecode(text)).toThrow(TextDecodingError)
  })
})
