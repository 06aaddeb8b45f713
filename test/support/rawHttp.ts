import { connect } from "node:net"
import { sleep } from "./time.ts"

/**
 * HTTP/1.1 over a raw socket, for what a client library will not send: pipelined requests in one
 * write or split anywhere, missing or odd Host headers, bytes no encoder would produce.
 */

export interface RawRequest {
  readonly method?: string
  readonly target: string
  /** The Host header's value; null sends none. */
  readonly host: string | null
  readonly headers?: ReadonlyArray<readonly [string, string]>
  readonly body?: string
  readonly version?: string
}

/** The request's bytes (header values written as latin1, so any byte can be sent). */
export const rawRequest = ({ method = "GET", target, host, headers = [], body, version = "HTTP/1.1" }: RawRequest): Buffer => {
  const lines = [`${method} ${target} ${version}`]
  if (host !== null) lines.push(`Host: ${host}`)
  for (const [name, value] of headers) lines.push(`${name}: ${value}`)
  if (body !== undefined && !headers.some(([name]) => name.toLowerCase() === "content-length")) lines.push(`Content-Length: ${Buffer.byteLength(body)}`)
  return Buffer.concat([Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1"), Buffer.from(body ?? "", "utf8")])
}

export interface RawResponse {
  readonly status: number
  readonly statusLine: string
  /** Names in lower case, values as sent. */
  readonly headers: ReadonlyArray<readonly [string, string]>
  readonly body: string
}

export const headerOf = (response: RawResponse, name: string): string | undefined => response.headers.find(([n]) => n === name)?.[1]

const STATUS_LINE = /^HTTP\/1\.1 ([1-5]\d\d)(?: [\x20-\x7e]*)?$/
const HEADER_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+):[ \t]*([\x20-\x7e\t]*?)[ \t]*$/

/**
 * Every complete response in `data`, in order; `heads[i]` says whether the i-th answers a HEAD
 * (no body). `malformed` names the first thing that is not HTTP/1.1 as it must be: a bad status
 * line, a header line that is not `name: value` in printable ASCII (a CR or LF inside a value
 * would show up here), a missing or doubled Content-Length.
 */
export const parseResponses = (data: Buffer, heads: ReadonlyArray<boolean>): { responses: Array<RawResponse>; rest: Buffer; malformed: string | null } => {
  const responses: Array<RawResponse> = []
  let offset = 0
  for (;;) {
    const end = data.indexOf("\r\n\r\n", offset, "latin1")
    if (end < 0) break
    const [statusLine, ...lines] = data.subarray(offset, end).toString("latin1").split("\r\n")
    const status = STATUS_LINE.exec(statusLine)
    if (status === null) return { responses, rest: data.subarray(offset), malformed: `status line ${JSON.stringify(statusLine)}` }
    const headers: Array<readonly [string, string]> = []
    for (const line of lines) {
      const match = HEADER_LINE.exec(line)
      if (match === null) return { responses, rest: data.subarray(offset), malformed: `header line ${JSON.stringify(line)}` }
      headers.push([match[1].toLowerCase(), match[2]])
    }
    const lengths = headers.filter(([name]) => name === "content-length").map(([, value]) => value)
    if (lengths.length !== 1 || !/^\d+$/.test(lengths[0])) return { responses, rest: data.subarray(offset), malformed: `content-length ${JSON.stringify(lengths)}` }
    const length = heads[responses.length] ? 0 : Number(lengths[0])
    if (data.length < end + 4 + length) break
    responses.push({ status: Number(status[1]), statusLine, headers, body: data.subarray(end + 4, end + 4 + length).toString("utf8") })
    offset = end + 4 + length
  }
  return { responses, rest: data.subarray(offset), malformed: null }
}

/** A step of an exchange: bytes to write, a pause in ms, or something to do (release a lock). */
export type Step = Buffer | number | (() => unknown)

export interface Exchange {
  readonly responses: Array<RawResponse>
  /** The server closed the connection before every request was answered. */
  readonly closed: boolean
  readonly timedOut: boolean
  readonly received: Buffer
  readonly malformed: string | null
}

export interface ExchangeOptions {
  /** Give up after this long in all. */
  readonly timeoutMs?: number
  /** Once every step ran, stop when nothing has arrived for this long. */
  readonly quietMs?: number
  /** Once every expected response came, keep reading this long (what else arrives is in `received`). */
  readonly graceMs?: number
}

/**
 * Opens a connection, runs the steps (never half-closing: uWS.js drops pending answers on a FIN),
 * and reads until `heads.length` responses came, the server closed, or time ran out.
 */
export const exchange = (port: number, steps: ReadonlyArray<Step>, heads: ReadonlyArray<boolean>, options: ExchangeOptions | number = {}): Promise<Exchange> =>
  new Promise((resolve, reject) => {
    const { timeoutMs = 5_000, quietMs, graceMs } = typeof options === "number" ? { timeoutMs: options } : options
    const socket = connect(port, "127.0.0.1")
    socket.setNoDelay(true)
    let received = Buffer.alloc(0)
    let settled = false
    let written = false
    let quiet: NodeJS.Timeout | undefined
    let grace: NodeJS.Timeout | undefined
    const finish = (closed: boolean, timedOut: boolean) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      clearTimeout(quiet)
      clearTimeout(grace)
      socket.destroy()
      const { responses, malformed } = parseResponses(received, heads)
      resolve({ responses, closed, timedOut, received, malformed })
    }
    const timer = setTimeout(() => finish(false, true), timeoutMs)
    const armQuiet = () => {
      if (quietMs === undefined || !written) return
      clearTimeout(quiet)
      quiet = setTimeout(() => finish(false, false), quietMs)
    }
    socket.on("data", (chunk) => {
      received = Buffer.concat([received, chunk])
      armQuiet()
      const { responses, malformed } = parseResponses(received, heads)
      if (malformed !== null) finish(false, false)
      else if (responses.length >= heads.length) {
        if (graceMs === undefined) finish(false, false)
        else grace ??= setTimeout(() => finish(false, false), graceMs)
      }
    })
    socket.on("close", () => finish(true, false))
    socket.on("error", (error: NodeJS.ErrnoException) => {
      // A reset after the server closed is a close.
      if (error.code === "ECONNRESET" || error.code === "EPIPE") finish(true, false)
      else if (!settled) {
        settled = true
        clearTimeout(timer)
        reject(error)
      }
    })
    socket.once("connect", async () => {
      for (const step of steps) {
        if (settled) return
        if (typeof step === "number") await sleep(step)
        else if (Buffer.isBuffer(step)) socket.write(step)
        else await step()
      }
      written = true
      armQuiet()
    })
  })

/** A connection kept open across a test's steps: written to when the test chooses, read until the server closes it. */
export interface KeptConnection {
  /** Resolves once the bytes are with the kernel (on loopback: in the server's receive queue). */
  readonly write: (bytes: Buffer) => Promise<void>
  /** Every complete response so far (`heads` as for parseResponses). */
  readonly responses: (heads: ReadonlyArray<boolean>) => ReturnType<typeof parseResponses>
  /** Resolves when the server has closed the connection (a reset included). */
  readonly closed: Promise<void>
  readonly isClosed: () => boolean
  readonly destroy: () => void
}

export const keepConnection = (port: number): Promise<KeptConnection> =>
  new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1")
    socket.setNoDelay(true)
    let received = Buffer.alloc(0)
    let closed = false
    socket.on("data", (chunk) => (received = Buffer.concat([received, chunk])))
    const closedPromise = new Promise<void>((done) =>
      socket.once("close", () => {
        closed = true
        done()
      })
    )
    socket.once("error", reject)
    socket.once("connect", () => {
      socket.off("error", reject)
      // A reset after the server closed is a close.
      socket.on("error", () => {})
      resolve({
        write: (bytes) => new Promise<void>((done, fail) => socket.write(bytes, (error) => (error ? fail(error) : done()))),
        responses: (heads) => parseResponses(received, heads),
        closed: closedPromise,
        isClosed: () => closed,
        destroy: () => socket.destroy()
      })
    })
  })

/** Whether a new connection to `port` on loopback is accepted or refused. */
export const tryConnect = (port: number): Promise<"accepted" | "refused"> =>
  new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1")
    socket.once("connect", () => {
      socket.destroy()
      resolve("accepted")
    })
    socket.once("error", (error: NodeJS.ErrnoException) => (error.code === "ECONNREFUSED" ? resolve("refused") : reject(error)))
  })
