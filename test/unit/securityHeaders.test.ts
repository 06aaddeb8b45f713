import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { sendNosniff } from "../../control/http/securityHeaders.ts"
import { answerWhileStarting } from "../../control/http/startingUp.ts"

describe("sendNosniff", () => {
  let server: Server | undefined
  afterEach(() => new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve()))))

  const listen = async (s: Server) => {
    server = s
    await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve))
    return `http://127.0.0.1:${(s.address() as AddressInfo).port}`
  }

  it("reaches the 503 of a server still starting, and every head a handler writes, which may set its own", async () => {
    const s = answerWhileStarting(sendNosniff(createServer()))
    const url = await listen(s)
    const early = await fetch(`${url}/healthz`)
    expect(early.status).toBe(503)
    expect(early.headers.get("x-content-type-options")).toBe("nosniff")

    s.on("request", (request, response) => {
      if (request.url === "/own") response.writeHead(200, { "x-content-type-options": "other", "content-type": "text/plain" })
      else response.writeHead(404, { "content-type": "application/json" })
      response.end("{}")
    })
    const answered = await fetch(`${url}/v1/anything`)
    expect(answered.status).toBe(404)
    expect(answered.headers.get("x-content-type-options")).toBe("nosniff")
    expect((await fetch(`${url}/own`)).headers.get("x-content-type-options")).toBe("other")
  })
})
