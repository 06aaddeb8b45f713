import { createServer } from "node:http"
import { connect } from "node:net"
import { describe, expect, it } from "vitest"
import { answerClientErrors, clientErrorResponse } from "../../control/http/clientError.ts"
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
    expect(lines).toContain("X-Content-Type-Options: nosniff")
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

describe("answerClientErrors", () => {
  it("lets a client that is still sending, and reads late, receive the answer (no reset before it reads)", async () => {
    const server = answerClientErrors(createServer((_req, res) => res.end("ok")))
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const port = (server.address() as { port: number }).port
    try {
      const received = await new Promise<string>((resolve) => {
        const socket = connect(port, "127.0.0.1")
        let text = ""
        socket.on("data", (chunk) => (text += chunk.toString("latin1")))
        // A reset shows as an error, the answer discarded with it: resolve with what was read.
        socket.on("error", () => resolve(text))
        socket.on("close", () => resolve(text))
        socket.on("connect", () => {
          // Headers over the parser's 16 KB, then a body that keeps coming; not reading for a while.
          socket.write(`POST /v1/links/${"z".repeat(21_000)} HTTP/1.1\r\nHost: x\r\nContent-Length: 4000000\r\n\r\n`)
          socket.pause()
          const chunk = Buffer.alloc(64 * 1024, 120)
          let sent = 0
          const more = () => {
            while (sent < 4_000_000 && !socket.destroyed) {
              sent += chunk.length
              if (!socket.write(chunk)) return void socket.once("drain", more)
            }
          }
          more()
          setTimeout(() => socket.resume(), 300)
        })
      })
      expect(received.startsWith("HTTP/1.1 431 "), received.slice(0, 200)).toBe(true)
      expect(received).toContain('"code":"bad_request"')
    } finally {
      server.close()
    }
  })
})
