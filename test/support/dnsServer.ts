import { createSocket } from "node:dgram"
import * as packet from "dns-packet"

export interface ZoneEntry {
  TXT?: Array<string>
  CNAME?: string
  A?: Array<string>
  AAAA?: Array<string>
}

/**
 * A DNS server on loopback answering from a table the test edits, so domain verification is
 * exercised over the real protocol. Unknown names are NXDOMAIN; a known name without the asked
 * type is an empty NOERROR answer (NODATA), as real servers do.
 */
export const startDnsServer = async () => {
  const zone = new Map<string, ZoneEntry>()
  /** Every question asked, in order, for tests that count who checked what and when. */
  const queries: Array<{ readonly name: string; readonly type: string; readonly at: number }> = []
  const socket = createSocket("udp4")
  const norm = (name: string) => name.toLowerCase().replace(/\.$/, "")

  socket.on("message", (message, remote) => {
    let query: packet.Packet
    try {
      query = packet.decode(message)
    } catch {
      return
    }
    const question = query.questions?.[0]
    if (question === undefined) return
    const name = norm(question.name)
    queries.push({ name, type: question.type, at: Date.now() })
    const entry = zone.get(name)
    const answers: Array<packet.Answer> = []
    if (entry !== undefined) {
      if (question.type === "TXT" && entry.TXT) {
        for (const value of entry.TXT) answers.push({ type: "TXT", name: question.name, ttl: 1, class: "IN", data: value })
      } else if (question.type === "CNAME" && entry.CNAME) {
        answers.push({ type: "CNAME", name: question.name, ttl: 1, class: "IN", data: entry.CNAME })
      } else if (question.type === "AAAA") {
        for (const ip of entry.AAAA ?? []) answers.push({ type: "AAAA", name: question.name, ttl: 1, class: "IN", data: ip })
      } else if (question.type === "A") {
        if (entry.CNAME) {
          answers.push({ type: "CNAME", name: question.name, ttl: 1, class: "IN", data: entry.CNAME })
          for (const ip of zone.get(norm(entry.CNAME))?.A ?? []) answers.push({ type: "A", name: entry.CNAME, ttl: 1, class: "IN", data: ip })
        } else {
          for (const ip of entry.A ?? []) answers.push({ type: "A", name: question.name, ttl: 1, class: "IN", data: ip })
        }
      }
    }
    const response = packet.encode({
      id: query.id,
      type: "response",
      flags: packet.RECURSION_DESIRED | packet.RECURSION_AVAILABLE | (entry === undefined ? 3 : 0),
      questions: query.questions,
      answers
    })
    socket.send(response, remote.port, remote.address)
  })

  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve))
  const { port } = socket.address()
  return {
    port,
    server: `127.0.0.1:${port}`,
    zone,
    queries,
    set: (name: string, entry: ZoneEntry) => zone.set(norm(name), entry),
    remove: (name: string) => zone.delete(norm(name)),
    close: () => new Promise<void>((resolve) => socket.close(() => resolve()))
  }
}
