import type { IncomingMessage, Server, ServerResponse } from "node:http"

/**
 * The server listens before the router is ready to serve (HttpRouter.serve adds the routes once
 * the server exists; the reference page's bundled script alone takes a while to load). Node keeps
 * a request that arrives with no handler yet open forever, so a client polling /healthz at start
 * would hang, and so would a graceful stop. Until the router attaches its handler, requests get
 * 503 with Retry-After and the error body.
 */
export const answerWhileStarting = <S extends Server>(server: S): S => {
  const body = JSON.stringify({ error: { code: "internal_server_error", message: "Starting up; retry in a moment" } })
  const starting = (_request: IncomingMessage, response: ServerResponse) => {
    response.writeHead(503, { "content-type": "application/json", "content-length": Buffer.byteLength(body), "retry-after": "1" })
    response.end(body)
  }
  const handOver = (event: string | symbol) => {
    if (event !== "request") return
    server.off("request", starting)
    server.off("newListener", handOver)
  }
  server.on("request", starting)
  server.on("newListener", handOver)
  return server
}
