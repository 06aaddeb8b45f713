// Preloaded (NODE_OPTIONS=--import) into a server under test: counts the statements PGlite runs in
// its main thread (each Bind or simple Query message of the wire protocol the embedded database is
// served with) and writes the running count to the file RICOCHET_TEST_PGLITE_COUNT names, a few
// times a second. Only for tests of how much an idle server asks its embedded database.
import { PGlite } from "@electric-sql/pglite"
import { writeFileSync } from "node:fs"
import { isMainThread } from "node:worker_threads"

const target = process.env.RICOCHET_TEST_PGLITE_COUNT
if (isMainThread && target !== undefined) {
  let statements = 0
  const countIn = (message) => {
    for (let at = 0; at + 5 <= message.length;) {
      const type = message[at]
      if (type === 0x42 || type === 0x51) statements++
      at += 1 + ((message[at + 1] << 24) | (message[at + 2] << 16) | (message[at + 3] << 8) | message[at + 4])
    }
  }
  // pglite-socket hands each client message to the database through this method.
  const original = PGlite.prototype.execProtocolRawStream
  if (typeof original !== "function") throw new Error("PGlite has no execProtocolRawStream: update test/support/pgliteStatements.mjs")
  PGlite.prototype.execProtocolRawStream = function (message, ...rest) {
    countIn(message)
    return original.call(this, message, ...rest)
  }
  setInterval(() => writeFileSync(target, String(statements)), 200).unref()
}
