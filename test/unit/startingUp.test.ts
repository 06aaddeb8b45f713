import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { answerWhileStarting } from "../../control/http/startingUp.ts"

describe("answerWhileStarting", () => {
  const server = answerWhileStarting(createServer())
  afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it("answers 503 with the error body until a handler is attached, then leaves requests to it alone", async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/healthz`
    // Without it Node would keep this request open forever: no handler has been attached yet.
    const early = await fetch(url, { signal: AbortSignal.timeout(5_000) })
    expect(early.status).toBe(503)
    expect(early.headers.get("retry-after")).toBe("1")
    expect(await early.json()).toEqual({ error: { code: "internal_server_error", message: "Starting up; retry in a moment" } })

    server.on("request", (_request, response) => response.end("served"))
    const later = await fetch(url, { signal: AbortSignal.timeout(5_000) })
    expect(later.status).toBe(200)
    expect(await later.text()).toBe("served")
    expect(server.listenerCount("request")).toBe(1)
  })
})
