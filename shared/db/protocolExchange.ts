/**
 * Whether a PostgreSQL connection is waiting for the server, read from the bytes of its wire
 * protocol (https://www.postgresql.org/docs/current/protocol-flow.html). A client's Query and
 * Sync messages, and its startup, are each answered by exactly one ReadyForQuery; a Flush is
 * answered by whatever the messages before it produce. So the connection waits while it has sent
 * more of those than it received ReadyForQuery, or flushed and read nothing since. Counting
 * messages, not bytes, keeps pipelined requests apart: a reply to one never hides another.
 *
 * Once the server accepts TLS the bytes are encrypted: `encrypted` says so, and the caller falls
 * back to the byte counters.
 */

const STARTUP = 196_608 // protocol 3.0
const SSL_REQUEST = 80_877_103
const QUERY = 0x51 // Q
const SYNC = 0x53 // S
const FLUSH = 0x48 // H
const READY_FOR_QUERY = 0x5a // Z

/**
 * Splits a byte stream into messages and reports each header. Typed messages are a type byte and
 * a length that counts itself; the first messages a client sends have no type byte, a length and
 * a 32-bit code instead.
 */
class MessageHeaders {
  private readonly header = Buffer.alloc(8)
  private have = 0
  private skip = 0

  constructor(
    public typed: boolean,
    private readonly onHeader: (typeOrCode: number) => void
  ) {}

  push(chunk: Uint8Array): void {
    let i = 0
    while (i < chunk.length) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, chunk.length - i)
        this.skip -= n
        i += n
        continue
      }
      const size = this.typed ? 5 : 8
      const n = Math.min(size - this.have, chunk.length - i)
      this.header.set(chunk.subarray(i, i + n), this.have)
      this.have += n
      i += n
      if (this.have < size) return
      this.have = 0
      if (this.typed) {
        this.skip = Math.max(0, this.header.readUInt32BE(1) - 4)
        this.onHeader(this.header[0])
      } else {
        this.skip = Math.max(0, this.header.readUInt32BE(0) - 8)
        this.onHeader(this.header.readUInt32BE(4))
      }
    }
  }
}

export class ProtocolExchange {
  private requests = 0
  private answers = 0
  private flushed = false
  private sslAnswerDue = false
  private tls = false
  /** When the connection last had news: a byte read, or a request sent while nothing was due. */
  private lastNewsAt = 0

  private readonly outgoing = new MessageHeaders(false, (typeOrCode) => {
    if (!this.outgoing.typed) {
      if (typeOrCode === SSL_REQUEST) this.sslAnswerDue = true
      if (typeOrCode !== STARTUP) return
      this.outgoing.typed = true
    } else if (typeOrCode === FLUSH) {
      this.flushed = true
      return
    } else if (typeOrCode !== QUERY && typeOrCode !== SYNC) {
      return
    }
    this.requests++
  })

  private readonly incoming = new MessageHeaders(true, (type) => {
    if (type === READY_FOR_QUERY) this.answers = Math.min(this.requests, this.answers + 1)
  })

  sent(chunk: Uint8Array, nowMs: number): void {
    if (this.tls) return
    if (!this.waiting) this.lastNewsAt = nowMs
    this.outgoing.push(chunk)
  }

  received(chunk: Uint8Array, nowMs: number): void {
    this.lastNewsAt = nowMs
    if (this.tls || chunk.length === 0) return
    this.flushed = false
    if (this.sslAnswerDue) {
      this.sslAnswerDue = false
      if (chunk[0] === 0x53) {
        this.tls = true
        return
      }
      chunk = chunk.subarray(1)
    }
    this.incoming.push(chunk)
  }

  /** Counts the silence from now on: a look that came late could not see what was read meanwhile. */
  restartSilence(nowMs: number): void {
    this.lastNewsAt = nowMs
  }

  /** The server owes this connection an answer. */
  get waiting(): boolean {
    return !this.tls && (this.requests > this.answers || this.flushed)
  }

  /** The server accepted TLS: the rest of the exchange cannot be read. */
  get encrypted(): boolean {
    return this.tls
  }

  /** Waiting, with no byte from the server for `stallMs`. */
  hung(nowMs: number, stallMs: number): boolean {
    return this.waiting && nowMs - this.lastNewsAt >= stallMs
  }
}
