import { createServer, type Server, type Socket, connect } from "node:net"

/**
 * A TCP proxy on loopback that a fault test controls: it sits between a process under test and a
 * service (PostgreSQL, NATS) and can refuse, hang or cut the connection on demand.
 *
 * - `pass`: bytes flow both ways (the normal state; `restore()` returns to it).
 * - `hang`: connections stay open but no byte moves either way, like a stalled network or a frozen
 *   server; new connections are accepted and stall too. What was held is delivered on `restore()`.
 * - `refuse`: the listening port is closed (new connections get ECONNREFUSED) and every open
 *   connection is reset, like a server that went down.
 * - `cut()`: every open connection is reset once; new connections pass.
 */
export interface TcpProxy {
  readonly port: number
  readonly url: (template: string) => string
  readonly mode: () => ProxyMode
  readonly hang: () => void
  readonly refuse: () => Promise<void>
  readonly cut: () => void
  readonly restore: () => Promise<void>
  readonly close: () => Promise<void>
  /** Connections accepted since start, for tests that check a client reconnected. */
  readonly accepted: () => number
}

export type ProxyMode = "pass" | "hang" | "refuse"

interface Pair {
  readonly client: Socket
  upstream: Socket | undefined
  readonly toUpstream: Array<Buffer>
  readonly toClient: Array<Buffer>
}

export const startTcpProxy = async (target: { host: string; port: number }, port = 0): Promise<TcpProxy> => {
  let mode: ProxyMode = "pass"
  let accepted = 0
  const pairs = new Set<Pair>()

  const destroy = (pair: Pair) => {
    pair.client.destroy()
    pair.upstream?.destroy()
    pairs.delete(pair)
  }

  const flush = (pair: Pair) => {
    if (pair.upstream === undefined) openUpstream(pair)
    for (const chunk of pair.toUpstream.splice(0)) pair.upstream!.write(chunk)
    for (const chunk of pair.toClient.splice(0)) pair.client.write(chunk)
  }

  const openUpstream = (pair: Pair) => {
    const upstream = connect(target.port, target.host)
    pair.upstream = upstream
    upstream.on("data", (chunk: Buffer) => {
      if (mode === "pass") pair.client.write(chunk)
      else pair.toClient.push(chunk)
    })
    upstream.on("error", () => destroy(pair))
    upstream.on("close", () => destroy(pair))
  }

  const onConnection = (client: Socket) => {
    accepted++
    const pair: Pair = { client, upstream: undefined, toUpstream: [], toClient: [] }
    pairs.add(pair)
    client.on("data", (chunk: Buffer) => {
      if (mode === "pass" && pair.upstream !== undefined) pair.upstream.write(chunk)
      else pair.toUpstream.push(chunk)
    })
    client.on("error", () => destroy(pair))
    client.on("close", () => destroy(pair))
    if (mode === "pass") flush(pair)
  }

  let server: Server
  const listen = (onPort: number) =>
    new Promise<number>((resolve, reject) => {
      server = createServer(onConnection)
      server.once("error", reject)
      server.listen(onPort, "127.0.0.1", () => resolve((server.address() as { port: number }).port))
    })
  const stopListening = () => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()))

  const boundPort = await listen(port)

  return {
    port: boundPort,
    url: (template) => template.replace("{port}", String(boundPort)),
    mode: () => mode,
    accepted: () => accepted,
    hang: () => {
      mode = "hang"
    },
    refuse: async () => {
      mode = "refuse"
      for (const pair of [...pairs]) destroy(pair)
      await stopListening()
    },
    cut: () => {
      for (const pair of [...pairs]) destroy(pair)
    },
    restore: async () => {
      const previous = mode
      mode = "pass"
      if (previous === "refuse") await listen(boundPort)
      for (const pair of pairs) flush(pair)
    },
    close: async () => {
      mode = "refuse"
      for (const pair of [...pairs]) destroy(pair)
      await stopListening()
    }
  }
}
