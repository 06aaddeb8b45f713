import type uWS from "uWebSockets.js"
import { SourceUnavailable } from "../cache/sourceGuard.ts"
import type { Responder } from "./respond.ts"

export type Respond = (res: uWS.HttpResponse) => void

/**
 * The answers that need an await (a cache miss, the password form), counted so that a stopping
 * server can let them finish (server.ts, stopping.ts).
 */
export class PendingAnswers {
  private inflight = 0
  private settledCount = 0

  constructor(private readonly responder: Responder) {}

  /** Answers under way. */
  get size(): number {
    return this.inflight
  }

  /** Answers settled so far (given, or aborted by their client): activity, for a stopping server. */
  get settled(): number {
    return this.settledCount
  }

  /**
   * Answers a request whose answer needs an await: onAborted first, as uWS.js requires, and the
   * response written corked.
   *
   * Pipelining: uWS.js (20.30; uWebSockets' HttpContext.h, "Are we not ready for another request
   * yet? Terminate the connection") closes a connection, without a word and before any handler
   * runs, when it parses a request while an earlier response on it is still pending. So reading
   * the connection is paused until the answer is written: a pipelined request that arrives
   * meanwhile waits in the socket's buffer and is answered after this one, in order. Requests
   * that came in the same read as this one are beyond reach (uWS parses a whole read in one go);
   * that is why an HTTP worker answers a cache miss before its handler returns where it can
   * (engine/cache/blockingMiss.ts), and only what it cannot comes here. Whatever this request loaded
   * stays in the cache, so a client that sends them again, as RFC 9112 9.3.2 asks of pipelining
   * clients when a connection closes, gets them answered synchronously. (An answer that needs no
   * I/O, such as a last known answer while the database fails, settles in the microtasks uWS.js
   * runs after each handler, before it parses on.)
   * `paused`: a POST pauses only once its body is in.
   */
  later(res: uWS.HttpResponse, head: boolean, work: () => Promise<void | Respond>, paused = true) {
    let aborted = false
    // This request's arrival, for its latency once answered (other requests arrive meanwhile).
    const arrived = this.responder.arrival
    this.inflight++
    res.onAborted(() => {
      aborted = true
    })
    if (paused) res.pause()
    work()
      .then((respond) => {
        if (!aborted && respond) {
          res.cork(() => {
            res.resume()
            this.responder.arrived(arrived)
            respond(res)
          })
        }
      })
      .catch((error) => {
        // The database is down or hangs and there is no earlier answer (the cache logs the outage).
        const unavailable = error instanceof SourceUnavailable
        if (!unavailable) console.error("engine request failed", error)
        if (!aborted) {
          this.responder.arrived(arrived)
          this.responder.failure(res, head, unavailable ? 503 : 500)
        }
      })
      .finally(() => {
        this.inflight--
        this.settledCount++
      })
  }
}
