import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"

export interface Received {
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
  readonly at: number
  /** The status it answered. */
  readonly status: number
}

/**
 * A webhook receiver on loopback that answers 200 and keeps what it got. `down()` closes its port
 * (connections are refused) and `up()` listens on the same port again; `respondWith(500)` makes it
 * answer that status (a failing receiver) until `respondWith(200)`.
 */
export const startReceiver = async () => {
  const received: Array<Received> = []
  let server: Server | undefined
  let port = 0
  let status = 200
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = createServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (chunk: Buffer) => chunks.push(chunk))
        req.on("end", () => {
          received.push({ path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now(), status })
          res.writeHead(status, { "content-type": "text/plain" }).end(status === 200 ? "ok" : "down")
        })
      })
      server.once("error", reject)
      server.listen(port, "127.0.0.1", () => {
        port = (server!.address() as AddressInfo).port
        resolve()
      })
    })
  const close = () =>
    new Promise<void>((resolve) => {
      if (server === undefined) return resolve()
      server.close(() => resolve())
      server.closeAllConnections()
      server = undefined
    })
  await listen()
  return {
    received,
    url: (path = "/hook") => `http://127.0.0.1:${port}${path}`,
    down: close,
    up: listen,
    respondWith: (code: number) => {
      status = code
    },
    close
  }
}
