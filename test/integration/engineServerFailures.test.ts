import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type LinkCache, MISSING } from "../../engine/cache/linkCache.ts"
import { startEngineServer } from "../../engine/http/server.ts"
import { compileDomain } from "../../engine/links/compile.ts"
import { startTestEngineServer } from "../support/engineServer.ts"
import { exchange, headerOf, rawRequest } from "../support/rawHttp.ts"

/**
 * engine/http/server.ts when something of ours fails (not the visitor's input): the server in
 * process, over a cache that throws or rejects for chosen hosts. The failure is logged and
 * answered with the generic page, a HEAD still gets no body, and the connection and the server
 * go on answering.
 */
describe("engine server: failures of ours", () => {
  let server: Awaited<ReturnType<typeof startEngineServer>>
  const errors: Array<unknown> = []
  const originalError = console.error

  beforeAll(async () => {
    console.error = (...args: Array<unknown>) => errors.push(args)
    const domain = compileDomain({ id: "dom_1", workspaceId: "ws_1", host: "ok.example", status: "verified", rootRedirectUrl: null, notFoundUrl: null, expiredUrl: null })
    const cache = {
      peekDomain: (host: string) => {
        if (host === "throws.example") throw new Error("cache bug")
        return host === "ok.example" ? domain : undefined
      },
      peekLink: () => MISSING,
      mayExist: () => false,
      loadDomain: async (host: string) => {
        if (host === "rejects.example") throw new Error("database gone")
        return MISSING
      },
      loadLink: async () => MISSING,
      // As on the main thread: no miss is answered by blocking.
      loadDomainNow: () => undefined,
      loadLinkNow: () => undefined
    } as unknown as LinkCache
    server = await startTestEngineServer(cache)
  })

  afterAll(async () => {
    console.error = originalError
    await server?.stop()
  })

  it("a handler that throws: logged, the generic 500 page, and the next pipelined request is answered", async () => {
    const result = await exchange(server.port, [
      Buffer.concat([rawRequest({ target: "/x", host: "throws.example" }), rawRequest({ target: "/", host: "ok.example" })])
    ], [false, false])
    expect(result.malformed).toBeNull()
    expect(result.responses.map((r) => r.status)).toEqual([500, 200])
    expect(result.responses[0].body).toContain("Something went wrong")
    expect(headerOf(result.responses[0], "content-security-policy")).toContain("frame-ancestors 'none'")
    expect(errors.length).toBeGreaterThan(0)
  })

  it("a load that fails: a failure page, without a body for HEAD, and the connection goes on", async () => {
    const result = await exchange(server.port, [
      rawRequest({ method: "HEAD", target: "/x", host: "rejects.example" }),
      100,
      rawRequest({ target: "/", host: "ok.example" })
    ], [true, false])
    expect(result.malformed).toBeNull()
    expect(result.responses[0].status).toBeGreaterThanOrEqual(500)
    expect(result.responses[0].body).toBe("")
    expect(result.responses[1].status).toBe(200)
    expect(result.received.toString("latin1")).not.toContain("Link not found")
  })
})
