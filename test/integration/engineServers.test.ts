import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type LinkCache, MISSING } from "../../engine/cache/linkCache.ts"
import { makeGeoLookup } from "../../engine/geo/geo.ts"
import { startEngineServer } from "../../engine/http/server.ts"
import { compileDomain } from "../../engine/links/compile.ts"
import { AnswerCounts } from "../../engine/ops/answerCounts.ts"
import { exchange, headerOf, rawRequest } from "../support/rawHttp.ts"

/**
 * What an engine server keeps is its own (engine/http/respond.ts, Responder): two servers in one
 * process, over a cache that knows one domain, each count their answers, and one stopping does
 * not make the other's answers say `Connection: close`.
 */
describe("engine servers in one process", () => {
  type Server = Awaited<ReturnType<typeof startEngineServer>>
  let first: Server | undefined
  let second: Server
  const firstAnswers = new AnswerCounts()
  const secondAnswers = new AnswerCounts()

  beforeAll(async () => {
    const domain = compileDomain({ id: "dom_1", workspaceId: "ws_1", host: "ok.example", status: "verified", rootRedirectUrl: null, notFoundUrl: null, expiredUrl: null })
    const cache = { peekDomain: () => domain, peekLink: () => MISSING, mayExist: () => false } as unknown as LinkCache
    const start = (answers: AnswerCounts) =>
      startEngineServer({
        host: "127.0.0.1",
        port: 0,
        cache,
        clicks: { add: () => {} },
        geo: makeGeoLookup({ header: undefined, countryDatabase: undefined, cityDatabase: undefined }),
        secret: "s",
        trustProxy: false,
        linkScheme: "http",
        status: () => "{}",
        answers
      })
    first = await start(firstAnswers)
    second = await start(secondAnswers)
  })

  afterAll(async () => {
    await first?.stop()
    await second?.stop()
  })

  const landing = async (server: Server) => {
    const result = await exchange(server.port, [rawRequest({ target: "/", host: "ok.example" })], [false])
    expect(result.malformed).toBeNull()
    expect(result.responses.map((r) => r.status)).toEqual([200])
    return result.responses[0]
  }

  it("each counts the answers it gave", async () => {
    await landing(first!)
    await landing(first!)
    await landing(second)
    expect(firstAnswers.snapshot()).toEqual([[200, 2]])
    expect(secondAnswers.snapshot()).toEqual([[200, 1]])
  })

  it("one stopping: the other's answers keep their connections open", async () => {
    await first!.stop()
    first = undefined
    expect(headerOf(await landing(second), "connection")).toBeUndefined()
  })
})
