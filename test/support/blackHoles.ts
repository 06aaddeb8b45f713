import { createServer, type Server, type Socket } from "node:net"
import type { AddressInfo } from "node:net"

/**
 * Webhook endpoints that accept the connection, read the request and never answer, each on its
 * own loopback port. Counts what is connected to each at once (and the most ever), so a test sees
 * how many sending slots a silent endpoint, or all of them, held.
 */
export const startBlackHoles = async (count: number) => {
  const servers: Array<Server> = []
  const open: Array<Set<Socket>> = []
  const maxOpen: Array<number> = []
  const accepted: Array<number> = []
  let maxTotal = 0
  const total = () => open.reduce((n, sockets) => n + sockets.size, 0)
  for (let i = 0; i < count; i++) {
    open.push(new Set())
    maxOpen.push(0)
    accepted.push(0)
    const server = createServer((socket) => {
      open[i].add(socket)
      accepted[i]++
      maxOpen[i] = Math.max(maxOpen[i], open[i].size)
      maxTotal = Math.max(maxTotal, total())
      socket.on("data", () => {})
      socket.on("error", () => {})
      socket.on("close", () => open[i].delete(socket))
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    servers.push(server)
  }
  return {
    urls: servers.map((server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`),
    /** Connections open now, over all ports. */
    open: total,
    /** The most connections open at once on any one port, and over all of them. */
    maxOpenPerEndpoint: () => Math.max(...maxOpen),
    maxOpenTotal: () => maxTotal,
    /** Connections accepted so far, per port. */
    accepted: () => [...accepted],
    close: async () => {
      for (const sockets of open) for (const socket of sockets) socket.destroy()
      await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))))
    }
  }
}
