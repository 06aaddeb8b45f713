import { request as httpRequest } from "node:http"
import { request as httpsRequest } from "node:https"
import type { TargetLookup } from "./targetLookup.ts"
import { refuseTarget } from "./targetUrl.ts"

export const SEND_TIMEOUT_MS = 10_000
/** What is kept of a receiver's answer: the log shows what it said, never a whole page. */
export const EXCERPT_BYTES = 512

export interface SendResult {
  /** The receiver's HTTP status, or null when it was not reached. */
  readonly status: number | null
  readonly excerpt: string | null
  readonly error: string | null
}

export interface SendOptions {
  readonly allowLoopback: boolean
  /** Resolves the host and refuses addresses that are not public (targetLookup.ts). */
  readonly lookup: TargetLookup
  readonly timeoutMs?: number
  /** Aborts the exchange (the worker stopping); the result then says so. */
  readonly signal?: AbortSignal
}

/**
 * POSTs one signed delivery. Bounded: the whole exchange within `timeoutMs`, redirects are not
 * followed (a 3xx is a failure like any non-2xx), and only the first bytes of the answer are read.
 * Never rejects: every failure is a result. A literal address in the URL is checked here (no
 * lookup happens for it); a name is checked on every address it resolves to.
 */
export const send = (url: string, headers: Record<string, string>, body: string, options: SendOptions): Promise<SendResult> =>
  new Promise((resolve) => {
    const refused = refuseTarget(url, options.allowLoopback)
    if (refused !== undefined) return resolve({ status: null, excerpt: null, error: refused })
    if (options.signal?.aborted) return resolve({ status: null, excerpt: null, error: "not sent: stopping" })
    const target = new URL(url)
    const request = target.protocol === "https:" ? httpsRequest : httpRequest
    const timeoutMs = options.timeoutMs ?? SEND_TIMEOUT_MS
    let settled = false
    const onAbort = () => finish({ status: null, excerpt: null, error: "not finished: stopping" })
    const finish = (result: SendResult) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      options.signal?.removeEventListener("abort", onAbort)
      req.destroy()
      resolve(result)
    }
    const req = request(target, {
      method: "POST",
      headers: { ...headers, "content-length": String(Buffer.byteLength(body)), "user-agent": "Ricochet-Webhooks/1" },
      lookup: options.lookup as never,
      agent: false
    }, (res) => {
      const chunks: Array<Buffer> = []
      let size = 0
      const done = () => finish({ status: res.statusCode ?? null, excerpt: Buffer.concat(chunks).toString("utf8").slice(0, EXCERPT_BYTES), error: null })
      res.on("data", (chunk: Buffer) => {
        if (size < EXCERPT_BYTES) chunks.push(chunk.subarray(0, EXCERPT_BYTES - size))
        size += chunk.length
        if (size >= EXCERPT_BYTES) done()
      })
      res.on("end", done)
      res.on("error", done)
    })
    const timer = setTimeout(() => finish({ status: null, excerpt: null, error: `no answer within ${timeoutMs / 1000} s` }), timeoutMs)
    options.signal?.addEventListener("abort", onAbort, { once: true })
    req.on("error", (error) => finish({ status: null, excerpt: null, error: error.message.slice(0, 300) }))
    req.end(body)
  })
