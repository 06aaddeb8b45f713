import type uWS from "uWebSockets.js"
import { isLoopback } from "./incoming.ts"
import { socketAddress } from "./socketAddress.ts"
import type { PendingAnswers } from "./pendingAnswers.ts"
import type { Responder } from "./respond.ts"

export const STATUS_PATH = "/.well-known/ricochet/status"

const JSON_HEADERS: ReadonlyArray<readonly [string, string]> = [["content-type", "application/json"]]

/**
 * The engine's counters for whoever runs it, on its own port's well-known path (STATUS_PATH, any
 * method) but only from loopback: elsewhere the handler yields, and the path is routed on as a
 * 404 like any other that is not a slug (the request is then counted twice as activity, which
 * only a stopping server reads). `status` gives the JSON text, or a
 * promise of it when the figures live on other threads (an HTTP worker asks the main thread,
 * which sums every worker's).
 */
export const makeStatusHandler = (status: () => string | Promise<string>, pending: PendingAnswers, responder: Responder) =>
(res: uWS.HttpResponse, req: uWS.HttpRequest): void => {
  if (!isLoopback(socketAddress(res))) {
    req.setYield(true)
    return
  }
  const head = req.getMethod() === "head"
  const json = status()
  if (typeof json === "string") responder.send(res, head, 200, JSON_HEADERS, json)
  else pending.later(res, head, async () => {
    const text = await json
    return (res) => responder.send(res, head, 200, JSON_HEADERS, text)
  })
}
