import type { IncomingMessage, Server, ServerResponse } from "node:http"

/**
 * `X-Content-Type-Options: nosniff` on every answer control gives (the /v1 API, errors included,
 * the QR images, the CSV export, the OpenAPI document and reference page, the probes, the
 * dashboard): a browser then never reads a body as anything but its declared type, so an answer
 * that carries client text (an error message, a link title in a CSV) cannot be run as script or
 * rendered as a page.
 *
 * Set on the Node response as the request arrives, before anything answers it: Node merges it
 * into whatever head is written later (a handler's own value wins), so it reaches answers made
 * from failures, from the middleware that answers paths the router cannot decode without calling
 * further in, and the 503 of a server still starting. The answers written straight to the socket
 * (clientError.ts) carry it in their own text.
 */
export const NOSNIFF = ["x-content-type-options", "nosniff"] as const

export const sendNosniff = <S extends Server>(server: S): S =>
  server.prependListener("request", (_request: IncomingMessage, response: ServerResponse) => {
    response.setHeader(...NOSNIFF)
  })
