import { afterEach, describe, expect, it } from "vitest"
import { type QrRenderPoolOptions, QrRenderPool, type RenderOutcome, type RenderRequest } from "../../control/links/qr/QrRenderPool.ts"
import { renderQr } from "../../control/links/qr/renderImage.ts"
import type { QrRenderOptions } from "../../shared/qr/qrWorkerMessages.ts"
import { sleep } from "../support/time.ts"

/**
 * The render threads with real worker threads: what they draw, how the queue refuses, and that
 * every render is answered when a thread dies, hangs, or the pool stops. The misbehaving thread
 * (test/support/misbehavingQrWorker.mjs) dies on the text "crash" and spins on "hang"; any other
 * text it draws with the real thread code.
 */
const MISBEHAVING = new URL("../support/misbehavingQrWorker.mjs", import.meta.url)
const PNG: QrRenderOptions = { format: "png", size: 128, margin: 4, color: "000000", background: "ffffff" }

let pools: Array<QrRenderPool> = []
afterEach(async () => {
  await Promise.all(pools.map((pool) => pool.stop()))
  pools = []
})

const start = (options: Partial<QrRenderPoolOptions> = {}) => {
  const pool = QrRenderPool.start({ threads: 1, maxWaiting: 8, maxPerWorkspace: 8, entry: MISBEHAVING, ...options })
  pools.push(pool)
  return pool
}

const request = (text: string, workspaceId = "ws_a", options: QrRenderOptions = PNG): RenderRequest => ({
  workspaceId,
  key: JSON.stringify([workspaceId, text, options]),
  text,
  options
})

/** The outcome, and how many times `done` was called by the time it settles (exactly once). */
const render = (pool: QrRenderPool, req: RenderRequest) => {
  let calls = 0
  const outcome = new Promise<RenderOutcome>((resolve) =>
    pool.render(req, (o) => {
      calls++
      resolve(o)
    }))
  return { outcome, calls: () => calls }
}

/** Waits until `check` holds (threads load for a while before they take renders). */
const until = async (check: () => boolean, what: string) => {
  const deadline = Date.now() + 60_000
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not ${what} within 60 s`)
    await sleep(10)
  }
}
const busy = (pool: QrRenderPool) => until(() => pool.counts.running > 0, "busy")

const reasonOf = (outcome: RenderOutcome) => (outcome.ok ? "rendered" : outcome.reason)

describe("QrRenderPool", () => {
  it("draws exactly what the renderer draws, PNG and SVG", async () => {
    const pool = start({ threads: 2 })
    const svgOptions: QrRenderOptions = { ...PNG, format: "svg", color: "123456" }
    const [png, svg] = await Promise.all([render(pool, request("https://go.example/a")).outcome, render(pool, request("https://go.example/a", "ws_a", svgOptions)).outcome])
    expect(png).toEqual({ ok: true, image: await renderQr("https://go.example/a", PNG) })
    expect(svg).toEqual({ ok: true, image: await renderQr("https://go.example/a", svgOptions) })
  })

  it("draws identical requests once, and tells every requester", async () => {
    const drawn: Array<string> = []
    const pool = start({ onRendered: (key) => drawn.push(key) })
    const outcomes = await Promise.all([1, 2, 3].map(() => render(pool, request("https://go.example/same")).outcome))
    expect(outcomes.map(reasonOf)).toEqual(["rendered", "rendered", "rendered"])
    expect(drawn).toHaveLength(1)
  })

  it("answers at once past the workspace's share, and past the whole queue, while other workspaces still get in", async () => {
    const pool = start({ maxWaiting: 3, maxPerWorkspace: 2, renderTimeoutMs: 60_000 })
    // The one thread spins on this until the pool stops: everything after it waits.
    render(pool, request("hang", "ws_a"))
    await busy(pool)
    const a2 = render(pool, request("https://go.example/a2", "ws_a"))
    expect(reasonOf(await render(pool, request("https://go.example/a3", "ws_a")).outcome)).toBe("workspaceFull")
    render(pool, request("https://go.example/b1", "ws_b"))
    render(pool, request("https://go.example/c1", "ws_c"))
    expect(reasonOf(await render(pool, request("https://go.example/d1", "ws_d")).outcome)).toBe("queueFull")
    expect(pool.counts).toEqual({ waiting: 3, running: 1, ready: 1 })
    await pool.stop()
    expect(reasonOf(await a2.outcome)).toBe("stopped")
    expect(a2.calls()).toBe(1)
  })

  it("answers the render of a thread that dies, replaces the thread, and draws the next", async () => {
    const pool = start()
    const crashed = render(pool, request("crash"))
    const next = render(pool, request("https://go.example/after-crash"))
    expect(reasonOf(await crashed.outcome)).toBe("threadLost")
    expect(reasonOf(await next.outcome)).toBe("rendered")
    expect(pool.restarts).toBe(1)
    expect(crashed.calls()).toBe(1)
  })

  it("stops a thread that hangs past the render timeout, answers its render, and draws the next on its replacement", async () => {
    const pool = start({ renderTimeoutMs: 8_000 })
    const hung = render(pool, request("hang"))
    const next = render(pool, request("https://go.example/after-hang"))
    expect(reasonOf(await hung.outcome)).toBe("threadLost")
    expect(reasonOf(await next.outcome)).toBe("rendered")
    expect(pool.restarts).toBe(1)
  })

  it("gives up a render that waits past the wait timeout", async () => {
    const pool = start({ renderTimeoutMs: 60_000, waitTimeoutMs: 500 })
    // The first render starts the thread, which loads for longer than the timeout (that render
    // may be given up meanwhile); once it is ready, a render that blocks it.
    const first = render(pool, request("https://go.example/first"))
    await until(() => pool.counts.ready === 1, "ready")
    await first.outcome
    render(pool, request("hang"))
    await busy(pool)
    const waiting = render(pool, request("https://go.example/waits"))
    expect(reasonOf(await waiting.outcome)).toBe("waitedTooLong")
    expect(pool.counts.waiting).toBe(0)
  })

  it("withdraws a waiting render its only requester gave up, but not one another requester still waits for", async () => {
    const pool = start({ renderTimeoutMs: 60_000, maxPerWorkspace: 2 })
    render(pool, request("hang"))
    await busy(pool)
    let called = false
    const cancel = pool.render(request("https://go.example/given-up"), () => (called = true))
    cancel()
    expect(pool.counts.waiting).toBe(0)
    // The workspace's share is free again: two more fit (one is the hanging render's).
    const shared = request("https://go.example/shared")
    const cancelOne = pool.render(shared, () => {})
    const other = render(pool, shared)
    cancelOne()
    expect(pool.counts.waiting).toBe(1)
    await pool.stop()
    expect(reasonOf(await other.outcome)).toBe("stopped")
    expect(called).toBe(false)
  })
})
