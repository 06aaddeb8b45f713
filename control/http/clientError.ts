import type { Server } from "node:http"
import type { Duplex } from "node:stream"

/**
 * Requests Node's HTTP parser refuses never reach a handler: a request line and headers over its
 * 16 KB limit, a malformed header, an unknown method. Node then writes a bare status line with no
 * body. This answers them as the API answers every error, in the same cases Node would answer at
 * all, with nosniff as every other answer (securityHeaders.ts), then closes the connection (its
 * stream cannot be trusted after a parse error). These requests are not admitted or counted, so
 * they carry no RateLimit headers.
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
    "X-Content-Type-Options: nosniff",
    "Connection: close",
    "",
    body
  ].join("\r\n")
}

/** How long, and how many bytes, a refused request's remaining body is read and dropped before the connection is cut. */
export const LINGER_MS = 2_000
export const LINGER_BYTES = 16 * 1024 * 1024

/**
 * Answers, then closes without a reset. The client may still be sending what we refused (a body
 * behind headers over the limit): closing a socket with unread bytes makes the kernel send a
 * reset, and a reset that reaches the client before it has read our answer discards that answer
 * (the client sees the connection fail). So, as nginx's lingering close does, the answer is
 * followed by our FIN and whatever still arrives is read and dropped until the client closes, for
 * at most LINGER_MS and LINGER_BYTES.
 */
const answerThenLinger = (socket: Duplex, response: string) => {
  let drained = 0
  const cut = setTimeout(() => socket.destroy(), LINGER_MS)
  cut.unref()
  socket.on("data", (chunk: Buffer) => {
    drained += chunk.length
    if (drained > LINGER_BYTES) socket.destroy()
  })
  socket.once("close", () => clearTimeout(cut))
  socket.once("end", () => socket.destroy())
  socket.on("error", () => socket.destroy())
  socket.end(response)
  socket.resume()
}

/**
 * Answers the server's client errors with the error body, as far as the socket allows. Node's
 * parser goes on reading a connection it refused and reports the bytes that follow as errors too:
 * those of a connection already being answered are ignored (destroying it then would reset it).
 */
export const answerClientErrors = <S extends Server>(server: S): S => {
  const answering = new WeakSet<Duplex>()
  return server.on("clientError", (error: Error & { code?: string }, socket: Duplex) => {
    if (answering.has(socket)) return
    // A response of this connection already started: nothing sane can be written any more.
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage
    if (error.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) {
      socket.destroy()
      return
    }
    answering.add(socket)
    answerThenLinger(socket, clientErrorResponse(error.code))
  })
}
