import type uWS from "uWebSockets.js"
import { forwardedClient } from "../../shared/http/forwarded.ts"
import { queryAsSent } from "../rules/query.ts"
import { requestHost } from "./requestHost.ts"
import { socketAddress } from "./socketAddress.ts"

/** Everything read from the request before the handler returns (uWS invalidates `req` then). */
export interface Incoming {
  /** As uWS.js names it; each method has its route (server.ts). */
  readonly method: RoutedMethod
  readonly host: string
  readonly slug: string
  readonly path: string
  readonly query: string
  readonly userAgent: string
  readonly referer: string
  readonly cookie: string
  readonly geoHeader: string
  readonly signatureAgent: string
  readonly ip: string
}

/** The methods a short link answers; every other gets 405. */
export type RoutedMethod = "get" | "head" | "post"

export interface ReadOptions {
  readonly trustProxy: boolean
  /** The header a CDN names the visitor's country in, if configured. */
  readonly geoHeaderName: string | undefined
}

export const isLoopback = (address: string) => address === "127.0.0.1" || address === "::1"

export const readIncoming = (res: uWS.HttpResponse, req: uWS.HttpRequest, options: ReadOptions, method: RoutedMethod): Incoming => {
  const host = requestHost(req.getHeader("host"))
  const path = req.getUrl()
  const slug = path.length > 1 && path.endsWith("/") ? path.slice(1, -1) : path.slice(1)
  // Behind a trusted proxy its header names the visitor, and the socket address (which costs
  // uWS.js an ArrayBuffer, over a microsecond) is not needed.
  const ip = (options.trustProxy ? forwardedClient(req.getHeader("x-forwarded-for")) : undefined) ?? socketAddress(res)
  return {
    method,
    host,
    slug,
    path,
    query: req.getQuery() ?? "",
    userAgent: req.getHeader("user-agent"),
    referer: req.getHeader("referer"),
    cookie: req.getHeader("cookie"),
    geoHeader: options.geoHeaderName === undefined ? "" : req.getHeader(options.geoHeaderName),
    signatureAgent: req.getHeader("signature-agent"),
    ip
  }
}

/** The URL the visitor asked for, for the password form to post back to and the 303 after it. */
export const selfUrl = (incoming: Incoming) => (incoming.query === "" ? incoming.path : `${incoming.path}?${queryAsSent(incoming.query)}`)
