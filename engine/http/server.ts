import uWS from "uWebSockets.js"
import type { LinkCache } from "../cache/linkCache.ts"
import type { ClickIntake } from "../clicks/clickChannel.ts"
import type { GeoLookup } from "../geo/geo.ts"
import { methodNotAllowedPage } from "../pages/html.ts"
import { headerKey, type ReadOptions, readIncoming, type RoutedMethod } from "./incoming.ts"
import { makePasswordHandler } from "./passwordHandler.ts"
import { PendingAnswers } from "./pendingAnswers.ts"
import { localAttempts, type PasswordAttempts } from "../password/unlock.ts"
import type { AnswerCounts } from "../ops/answerCounts.ts"
import type { Headers } from "../pages/securityHeaders.ts"
import { Responder } from "./respond.ts"
import { makeStatusHandler, STATUS_PATH } from "./statusHandler.ts"
import { afterTwoPolls, STOP_DEADLINE_MS, untilQuiet } from "./stopping.ts"
import { makeVisitHandler } from "./visitHandler.ts"

export interface EngineServerOptions {
  readonly host: string
  readonly port: number
  readonly cache: LinkCache
  readonly clicks: ClickIntake
  readonly geo: GeoLookup
  readonly secret: string
  readonly trustProxy: boolean
  /** Scheme visitors used, for Secure cookies: "https" behind TLS termination. */
  readonly linkScheme: "http" | "https"
  /** The status page's JSON text (a promise of it in a worker: the figures are summed on the main thread). */
  readonly status: () => string | Promise<string>
  /** Wrong password guesses: counted here unless given (an HTTP worker asks its main thread). */
  readonly attempts?: PasswordAttempts
  /** Answers by status, for the admin port's /metrics. */
  readonly answers?: AnswerCounts
}

const ALLOW: Headers = [["allow", "GET, HEAD, POST"]]

type Handler = (res: uWS.HttpResponse, req: uWS.HttpRequest) => void

/**
 * The uWebSockets.js app: one route per concern. uWS.js tries a static path before a wildcard,
 * and a method's own route before `any`: the loopback status page first (any method; elsewhere
 * it yields to the routes below), then GET and HEAD of a short link, the password form's POST,
 * and 405 for every other method.
 */
export const startEngineServer = async (options: EngineServerOptions) => {
  const { cache, clicks, geo, secret } = options
  const responder = new Responder(options.answers)
  const pending = new PendingAnswers(responder)
  const readOptions: ReadOptions = { trustProxy: options.trustProxy, geoHeaderKey: geo.headerName === undefined ? undefined : headerKey(geo.headerName) }
  const status = makeStatusHandler(options.status, pending, responder)
  const visit = makeVisitHandler({ cache, clicks, geo, secret, pending, responder })
  const password = makePasswordHandler({ cache, secret, linkScheme: options.linkScheme, pending, attempts: options.attempts ?? localAttempts(), responder })
  /** Requests received: with the answers given, what a stopping server watches to know it is quiet. */
  let received = 0
  const activity = { count: () => received + pending.settled, busy: () => pending.size > 0 }

  /** A route's handler, made once: the request's arrival noted and counted, and a bug of ours logged and answered with the generic page. */
  const route = (handle: Handler): Handler => (res, req) => {
    responder.arrived()
    received++
    try {
      handle(res, req)
    } catch (error) {
      console.error("engine request failed", error)
      responder.failure(res, req.getMethod() === "head")
    }
  }
  /** A short link's route: the request read once (uWS invalidates `req` when the handler returns). */
  const link = (method: RoutedMethod, handle: typeof visit) => route((res, req) => handle(res, readIncoming(res, req, readOptions, method)))

  // What uWS.js 20.30 never hands to a handler, so nothing here can answer it (raw-socket tests:
  // test/integration/engineHttp.test.ts, test/fuzz/engine.fuzz.test.ts). Its parser takes for an
  // incomplete request, and waits on until its 10 s idle timeout closes the connection: a request
  // line other than `METHOD /origin-form-target HTTP/1.1` (HTTP/1.0, absolute-form, `*`, bare LF
  // line ends), a request without Host, malformed header lines (control characters, a space
  // before the colon, folding), more than about 50 headers. It closes at once: methods other than
  // the nine of RFC 9110, Content-Length with Transfer-Encoding or not a number, a header block
  // over 4 KB that arrives in pieces.
  // uWS.js writes a `uWebSockets: 20` header on every answer unless told to be silent; what
  // server answers tells a visitor nothing they need.
  uWS._cfg("silent")
  const app = uWS.App()
    .any(STATUS_PATH, route(status))
    .get("/*", link("get", visit))
    .head("/*", link("head", visit))
    .post("/*", link("post", password))
    .any("/*", route((res) => responder.page(res, false, 405, methodNotAllowedPage(), ALLOW)))

  const listenSocket = await new Promise<uWS.us_listen_socket>((resolve, reject) =>
    app.listen(options.host, options.port, (token) => (token ? resolve(token) : reject(new Error(`engine could not listen on ${options.host}:${options.port}`))))
  )

  return {
    port: uWS.us_socket_local_port(listenSocket),
    /**
     * Stops accepting connections (new ones are refused; those the kernel had completed are
     * accepted first), answers every request that reaches the open ones (their answers say
     * `Connection: close`), and closes them once quiet, or at STOP_DEADLINE_MS whatever their
     * clients still send. (An answer waits on the database for 2 s at most, LinkCache's bound:
     * what was received is answered well within the deadline.)
     */
    stop: async () => {
      responder.answerWithConnectionClose()
      await afterTwoPolls()
      uWS.us_listen_socket_close(listenSocket)
      await untilQuiet(activity, Date.now() + STOP_DEADLINE_MS)
      // Until now a connection stayed open after its answers, in case the client had pipelined
      // more behind them: closing one with a request in its buffer would lose that request.
      // Every connection still open, then: a worker thread whose uWS.js sockets are open when it
      // ends takes the process down (libuv: "uv_loop_close() while having open handles").
      // `close` is in the binary, not in its typings.
      ;(app as unknown as { close(): void }).close()
    }
  }
}
