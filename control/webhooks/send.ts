import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns"
import { request as httpRequest } from "node:http"
import { request as httpsRequest } from "node:https"
import { isLoopbackAddress, isPrivateAddress, refuseTarget } from "./targetUrl.ts"

export const SEND_TIMEOUT_MS = 10_000
/** What is kept of a receiver's answer: the log shows what it said, never a whole page. */
export const EXCERPT_BYTES = 512

export interface SendResult {
  /** The receiver's HTTP status, or null when it was not reached. */
  readonly status: number | null
  readonly excerpt: string | null
  readonly error: string | null
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | Array<LookupAddress>, family?: number) => void

/**
 * A DNS lookup that refuses private addresses (a public name pointed at an internal one, or
 * rebinding between the check and the connection): the address checked is the one connected to.
 */
const guardedLookup = (allowLoopback: boolean) => (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, [])
    const refused = addresses.find(({ address }) => isPrivateAddress(address) && !(allowLoopback && isLoopbackAddress(address)))
    if (refused !== undefined) {
      return callback(Object.assign(new Error(`${hostname} resolves to ${refused.address}, a private address`), { code: "EPRIVATE" }), [])
    }
    if (options.all) return callback(null, addresses)
    callback(null, addresses[0].address, addresses[0].family)
  })
}

/**
 * POSTs one signed delivery. Bounded: the whole exchange within `timeoutMs`, redirects are not
 * followed (a 3xx is a failure like any non-2xx), and only the first bytes of the answer are read.
 * Never rejects: every failure is a result.
 */
export const send = (
  url: string,
  headers: Record<string, string>,
  body: string,
  options: { readonly allowLoopback: boolean; readonly timeoutMs?: number }
): Promise<SendResult> =>
  new Promise((resolve) => {
    const refused = refuseTarget(url, options.allowLoopback)
    if (refused !== undefined) return resolve({ status: null, excerpt: null, error: refused })
    const target = new URL(url)
    const request = target.protocol === "https:" ? httpsRequest : httpRequest
    let settled = false
    const finish = (result: SendResult) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      req.destroy()
      resolve(result)
    }
    const req = request(target, {
      method: "POST",
      headers: { ...headers, "content-length": String(Buffer.byteLength(body)), "user-agent": "Ricochet-Webhooks/1" },
      lookup: guardedLookup(options.allowLoopback) as never,
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
    const timer = setTimeout(() => finish({ status: null, excerpt: null, error: `no answer within ${(options.timeoutMs ?? SEND_TIMEOUT_MS) / 1000} s` }), options.timeoutMs ?? SEND_TIMEOUT_MS)
    req.on("error", (error) => finish({ status: null, excerpt: null, error: error.message.slice(0, 300) }))
    req.end(body)
  })
