import type { Server } from "node:http"
import type { Duplex } from "node:stream"

/**
 * Requests Node's HTTP parser refuses never reach a handler: a request line and headers over its
 * 16 KB limit, a malformed header, an unknown method. Node then writes a bare status line with no
 * body. This answers them as the API answers every error, in the same cases Node would answer at
 * all, then closes the connection (its stream cannot be trusted after a parse error). These
 * requests are not admitted or counted, so they carry no RateLimit headers.
 */

const REASONS: Record<number, string> = { 400: "Bad Request", 408: "Request Timeout", 413: "Payload Too Large", 431: "Request Header Fields Too Large" }

/** The status and message Node's own handler would choose for `code`. */
export const clientErrorAnswer = (code: string | undefined): { status: number; message: string } => {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return { status: 431, message: "The request line and headers are larger than 16 KB" }
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return { status: 413, message: "The chunk extensions of the request body are too large" }
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, message: "The request took too long to arrive" }
    default:
      return { status: 400, message: "The request is not valid HTTP/1.1" }
  }
}

export const clientErrorResponse = (code: string | undefined): string => {
  const { status, message } = clientErrorAnswer(code)
  const body = JSON.stringify({ error: { code: "bad_request", message } })
  return [
    `HTTP/1.1 ${status} ${REASONS[status]}`,
    "Content-Type: application/json",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Cache-Control: no-store",
    "Connection: close",
    "",
    body
  ].join("\r\n")
}

/** Answers the server's client errors with the error body, as far as the socket allows. */
export const answerClientErrors = <S extends Server>(server: S): S =>
  server.on("clientError", (error: Error & { code?: string }, socket: Duplex) => {
    // A response of this connection already started: nothing sane can be written any more.
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage
    if (error.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) {
      socket.destroy()
      return
    }
    socket.end(clientErrorResponse(error.code), () => socket.destroy())
  })
