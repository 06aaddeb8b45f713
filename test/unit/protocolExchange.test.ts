import { describe, expect, it } from "vitest"
import { ProtocolExchange } from "../../shared/db/protocolExchange.ts"

/** A typed message: type byte, length (counting itself), then `bodyLength` bytes. */
const typed = (type: string, bodyLength = 0): Buffer => {
  const message = Buffer.alloc(5 + bodyLength, 0x61)
  message[0] = type.charCodeAt(0)
  message.writeUInt32BE(4 + bodyLength, 1)
  return message
}
/** An untyped first message: length, 32-bit code, then `bodyLength` bytes. */
const untyped = (code: number, bodyLength = 0): Buffer => {
  const message = Buffer.alloc(8 + bodyLength, 0x62)
  message.writeUInt32BE(8 + bodyLength, 0)
  message.writeUInt32BE(code, 4)
  return message
}
const startup = untyped(196_608, 40)
const sslRequest = untyped(80_877_103)
const cancelRequest = untyped(80_877_102, 8)
const startupAnswer = Buffer.concat([typed("R", 4), typed("S", 20), typed("S", 18), typed("K", 8), typed("Z", 1)])
const rows = (n: number) => Buffer.concat([typed("T", 30), ...Array.from({ length: n }, () => typed("D", 12)), typed("C", 9)])

type Step = readonly ["out" | "in", Buffer]

/** Sends each step whole, or byte by byte (messages split anywhere must count the same). */
const run = (steps: ReadonlyArray<Step>, bytewise: boolean) => {
  const exchange = new ProtocolExchange()
  for (const [direction, bytes] of steps) {
    const chunks = bytewise ? [...bytes].map((b) => Buffer.from([b])) : [bytes]
    for (const chunk of chunks) (direction === "out" ? exchange.sent(chunk, 0) : exchange.received(chunk, 0))
  }
  return { waiting: exchange.waiting, encrypted: exchange.encrypted }
}

describe("ProtocolExchange: whether the server owes a connection an answer", () => {
  const cases: ReadonlyArray<readonly [what: string, steps: ReadonlyArray<Step>, waiting: boolean, encrypted?: boolean]> = [
    ["nothing sent", [], false],
    ["startup sent", [["out", startup]], true],
    ["startup answered", [["out", startup], ["in", startupAnswer]], false],
    ["password exchange under way", [["out", startup], ["in", typed("R", 8)], ["out", typed("p", 30)], ["in", typed("R", 40)]], true],
    ["query sent", [["out", startup], ["in", startupAnswer], ["out", typed("Q", 20)]], true],
    ["query answered", [["out", startup], ["in", startupAnswer], ["out", typed("Q", 20)], ["in", Buffer.concat([rows(3), typed("Z", 1)])]], false],
    ["rows still coming", [["out", startup], ["in", startupAnswer], ["out", typed("Q", 20)], ["in", rows(50)]], true],
    ["extended query: parse, bind, execute, sync", [["out", startup], ["in", startupAnswer], ["out", Buffer.concat([typed("P", 30), typed("D", 6), typed("B", 20), typed("E", 5), typed("S")])]], true],
    ["extended query answered", [["out", startup], ["in", startupAnswer], ["out", Buffer.concat([typed("P", 30), typed("B", 20), typed("E", 5), typed("S")])], ["in", Buffer.concat([typed("1"), typed("2"), rows(1), typed("Z", 1)])]], false],
    ["two pipelined, one answered", [["out", startup], ["in", startupAnswer], ["out", typed("Q", 20)], ["out", typed("Q", 20)], ["in", Buffer.concat([rows(1), typed("Z", 1)])]], true],
    ["two pipelined, both answered", [["out", startup], ["in", startupAnswer], ["out", Buffer.concat([typed("Q", 20), typed("Q", 20)])], ["in", Buffer.concat([rows(1), typed("Z", 1), rows(2), typed("Z", 1)])]], false],
    ["an error answered by ReadyForQuery", [["out", startup], ["in", startupAnswer], ["out", typed("Q", 20)], ["in", Buffer.concat([typed("E", 60), typed("Z", 1)])]], false],
    ["describe flushed, nothing back", [["out", startup], ["in", startupAnswer], ["out", Buffer.concat([typed("P", 30), typed("D", 6), typed("H")])]], true],
    ["describe flushed and answered", [["out", startup], ["in", startupAnswer], ["out", Buffer.concat([typed("P", 30), typed("D", 6), typed("H")])], ["in", Buffer.concat([typed("1"), typed("t", 6), typed("T", 30)])]], false],
    ["notification on an idle connection", [["out", startup], ["in", startupAnswer], ["in", typed("A", 30)]], false],
    ["terminate expects nothing", [["out", startup], ["in", startupAnswer], ["out", typed("X")]], false],
    ["cancel request expects nothing", [["out", cancelRequest]], false],
    ["TLS refused, plain startup", [["out", sslRequest], ["in", Buffer.from("N")], ["out", startup]], true],
    ["TLS refused, startup answered", [["out", sslRequest], ["in", Buffer.from("N")], ["out", startup], ["in", startupAnswer]], false],
    ["TLS accepted: encrypted from then on", [["out", sslRequest], ["in", Buffer.from("S")], ["out", Buffer.from("\x16\x03\x01 handshake")]], false, true]
  ]
  it.each(cases.map(([what, steps, waiting, encrypted]) => ({ what, steps, waiting, encrypted: encrypted ?? false })))(
    "$what",
    ({ steps, waiting, encrypted }) => {
      expect(run(steps, false)).toEqual({ waiting, encrypted })
      expect(run(steps, true)).toEqual({ waiting, encrypted })
    }
  )
})

describe("ProtocolExchange.hung: waiting with no byte from the server for the stall time", () => {
  it("times the silence from the request, and a byte of reply restarts it", () => {
    const exchange = new ProtocolExchange()
    exchange.sent(startup, 0)
    exchange.received(startupAnswer, 10)
    expect(exchange.hung(60_000, 1_000)).toBe(false)
    exchange.sent(typed("Q", 20), 60_000)
    expect(exchange.hung(60_999, 1_000)).toBe(false)
    expect(exchange.hung(61_000, 1_000)).toBe(true)
    exchange.received(rows(1), 61_500)
    expect(exchange.hung(62_000, 1_000)).toBe(false)
    expect(exchange.hung(62_500, 1_000)).toBe(true)
    exchange.restartSilence(62_500)
    expect(exchange.hung(63_000, 1_000)).toBe(false)
    exchange.received(typed("Z", 1), 63_000)
    expect(exchange.hung(99_000, 1_000)).toBe(false)
  })

  it("does not restart the silence for a request sent while another waits", () => {
    const exchange = new ProtocolExchange()
    exchange.sent(startup, 0)
    exchange.received(startupAnswer, 10)
    exchange.sent(typed("Q", 20), 100)
    exchange.sent(typed("Q", 20), 900)
    expect(exchange.hung(1_100, 1_000)).toBe(true)
  })
})
