import { describe, expect, it } from "vitest"
import { clientErrorResponse } from "../../control/http/clientError.ts"
import { isDecodablePath } from "../../control/http/requestPath.ts"

/** What control answers requests its router or Node's parser cannot read (control/http/clientError.ts, requestPath.ts). */

describe("clientErrorResponse", () => {
  it.each<readonly [string | undefined, number]>([
    ["HPE_HEADER_OVERFLOW", 431],
    ["HPE_CHUNK_EXTENSIONS_OVERFLOW", 413],
    ["ERR_HTTP_REQUEST_TIMEOUT", 408],
    ["HPE_INVALID_METHOD", 400],
    ["HPE_INVALID_HEADER_TOKEN", 400],
    [undefined, 400]
  ])("%s → %i with the error body", (code, status) => {
    const raw = clientErrorResponse(code)
    const [head, body] = raw.split("\r\n\r\n")
    const lines = head.split("\r\n")
    expect(lines[0]).toMatch(new RegExp(`^HTTP/1\\.1 ${status} [A-Z]`))
    expect(lines).toContain("Content-Type: application/json")
    expect(lines).toContain("Connection: close")
    expect(lines).toContain(`Content-Length: ${Buffer.byteLength(body)}`)
    const parsed = JSON.parse(body)
    expect(Object.keys(parsed)).toEqual(["error"])
    expect(parsed.error.code).toBe("bad_request")
    expect(parsed.error.message.length).toBeGreaterThan(0)
  })
})

describe("isDecodablePath", () => {
  it.each<readonly [string, boolean]>([
    ["/v1/links", true],
    ["/v1/links/lnk_abc?x=%ff", true],
    ["/v1/links/%C3%BC", true],
    ["/v1/links/%00", true],
    ["/v1/links/%25", true],
    ["/v1/links/a;b=%ff", true],
    ["/v1/links/%ff", false],
    ["/v1/links/%zz", false],
    ["/v1/links/%", false],
    ["/v1/links/%ED%A0%80", false],
    ["/%C3", false]
  ])("%s → %s", (url, expected) => {
    expect(isDecodablePath(url)).toBe(expected)
  })
})
