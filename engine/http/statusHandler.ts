import type uWS from "uWebSockets.js"
import { type Incoming, isLoopback, socketAddress } from "./incoming.ts"
import { send } from "./respond.ts"

export const STATUS_PATH = "/.well-known/ricochet/status"

/**
 * The engine's counters for whoever runs it, on its own port's well-known path but only from
 * loopback (elsewhere the path is a 404 like any other that is not a slug); true when answered.
 */
export const makeStatusHandler = (status: () => unknown) => (res: uWS.HttpResponse, incoming: Incoming): boolean => {
  if (incoming.path !== STATUS_PATH || !isLoopback(socketAddress(res))) return false
  send(res, incoming.method === "head", 200, [["content-type", "application/json"]], JSON.stringify(status()))
  return true
}
