import type uWS from "uWebSockets.js"
import { errorPage, unavailablePage } from "../pages/html.ts"
import { type Headers, PAGE_HEADERS, REDIRECT_REFERRER_POLICY } from "../pages/securityHeaders.ts"
import type { AnswerCounts } from "../ops/answerCounts.ts"
import { NO_STORE, RedirectHeads, safeLocation } from "./redirectHeads.ts"

const STATUS_LINE: Readonly<Record<number, string>> = {
  200: "200 OK",
  301: "301 Moved Permanently",
  302: "302 Found",
  303: "303 See Other",
  307: "307 Temporary Redirect",
  308: "308 Permanent Redirect",
  400: "400 Bad Request",
  403: "403 Forbidden",
  404: "404 Not Found",
  405: "405 Method Not Allowed",
  410: "410 Gone",
  413: "413 Payload Too Large",
  429: "429 Too Many Requests",
  500: "500 Internal Server Error",
  502: "502 Bad Gateway",
  503: "503 Service Unavailable"
}

/** Every status the engine answers with: its metrics show each from the start, at 0. */
export const ANSWER_STATUSES: ReadonlyArray<number> = Object.keys(STATUS_LINE).map(Number)

const NO_HEADERS: Headers = []

/**
 * One server's answers: written here, counted by status and latency for the admin port's
 * /metrics (AnswerCounts), and told to say `Connection: close` once the server stops. Owned by
 * the server (server.ts), handed to each handler.
 */
export class Responder {
  /**
   * When the request being answered reached its handler (performance.now()), for the latency
   * histogram: set as each request is routed, and set back before an answer that needed an await
   * is written (PendingAnswers). A field rather than an argument of every call: the thread
   * answers one request at a time.
   */
  private arrivedAt = 0
  /**
   * Set once the server stops: from then on every answer says `Connection: close`, so that
   * clients open no further requests on their kept-alive connections (new connections are
   * refused by then). The connection itself stays open until the server closes them all: requests
   * a client had pipelined behind this one may already be on their way, and are answered too.
   */
  private closing = false
  private readonly heads = new RedirectHeads()

  constructor(private readonly counts: AnswerCounts | undefined) {}

  /** A request reached its handler now, or its answer that waited is written (`at`: when it arrived). */
  arrived(at: number = performance.now()): void {
    this.arrivedAt = at
  }

  /** The arrival of the request being handled now. */
  get arrival(): number {
    return this.arrivedAt
  }

  answerWithConnectionClose(): void {
    this.closing = true
  }

  send(res: uWS.HttpResponse, head: boolean, status: number, headers: Headers, body = "", extra: Headers = NO_HEADERS): void {
    this.counted(status)
    res.writeStatus(STATUS_LINE[status] ?? `${status}`)
    for (const [name, value] of headers) res.writeHeader(name, value)
    for (const [name, value] of extra) res.writeHeader(name, value)
    if (this.closing) res.writeHeader("connection", "close")
    if (head) {
      // uWS.js 20.30: endWithoutBody(n) with n > 0 leaves the response pending, which aborts the
      // process when it happens inside a request handler. Report the length ourselves instead.
      res.writeHeader("content-length", String(Buffer.byteLength(body)))
      res.endWithoutBody()
    } else res.end(body)
  }

  /** A page with its policy headers (securityHeaders.ts), and any `extra` ones. */
  page(res: uWS.HttpResponse, head: boolean, status: number, html: string, extra: Headers = NO_HEADERS, headers: Headers = PAGE_HEADERS): void {
    this.send(res, head, status, headers, html, extra)
  }

  /** The hot path's response: written directly, without send()'s header list. */
  redirect(res: uWS.HttpResponse, head: boolean, status: number, location: string): void {
    const made = this.heads.get(status, location)
    if (made !== undefined) {
      this.counted(status)
      res.writeStatus(made)
    } else {
      if (!safeLocation(location)) return this.page(res, head, 502, errorPage())
      this.counted(status)
      const statusLine = STATUS_LINE[status] ?? `${status}`
      res.writeStatus(statusLine).writeHeader("location", location).writeHeader("cache-control", NO_STORE)
        .writeHeader("referrer-policy", REDIRECT_REFERRER_POLICY)
      this.heads.written(status, statusLine, location)
    }
    if (this.closing) res.writeHeader("connection", "close")
    if (head) res.writeHeader("content-length", "0").endWithoutBody()
    else res.end()
  }

  /** A failure of ours (never a visitor's input): the generic page, if the response can still say anything. */
  failure(res: uWS.HttpResponse, head: boolean, status: 500 | 503 = 500): void {
    try {
      res.cork(() => {
        res.resume()
        if (status === 503) this.page(res, head, 503, unavailablePage(), [["retry-after", "5"]])
        else this.page(res, head, 500, errorPage())
      })
    } catch {
      // The response had already been ended (the failure came after it): nothing more to say on it.
    }
  }

  private counted(status: number): void {
    if (this.counts !== undefined) this.counts.record(status, performance.now() - this.arrivedAt)
  }
}
