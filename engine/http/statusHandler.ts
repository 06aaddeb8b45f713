import type uWS from "uWebSockets.js"
import { type Incoming, isLoopback, socketAddress } from "./incoming.ts"
import type { PendingAnswers } from "./pendingAnswers.ts"
import { send } from "./respond.ts"

export const STATUS_PATH = "/.well-known/ricochet/status"

const JSON_HEADERS: ReadonlyArray<readonly [string, string]> = [["content-type", "application/json"]]

/**
 * The engine's counters for whoever runs it, on its own port's well-known path but only from
 * loopback (elsewhere the path is a 404 like any other that is not a slug); true when answered.
 * `status` gives the JSON text, or a promise of it when the figures live on other threads (an
 * HTTP worker asks the main thread, which sums every worker's).
 */
export const makeStatusHandler = (status: () => string | Promise<string>, pending: PendingAnswers) =>
(res: uWS.HttpResponse, incoming: Incoming): boolean => {
  if (incoming.path !== STATUS_PATH || !isLoopback(socketAddress(res))) return false
  const head = incoming.method === "head"
  const json = status()
  if (typeof json === "string") send(res, head, 200, JSON_HEADERS, json)
  else pending.later(res, head, async () => {
    const text = await json
    return (res) => send(res, head, 200, JSON_HEADERS, text)
  })
  return true
}
