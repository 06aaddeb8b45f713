import { PGlite } from "@electric-sql/pglite"
const names = new Map(); const counts = new Map(); let total = 0; let ms = 0
const orig = PGlite.prototype.execProtocolRawSync
const cstr = (buf, at) => { let end = at; while (buf[end] !== 0) end++; return [Buffer.from(buf.subarray(at, end)).toString("latin1"), end + 1] }
PGlite.prototype.execProtocolRawSync = function (message, ...rest) {
  let i = 0
  while (i < message.length) {
    const type = message[i]; const len = Buffer.from(message.buffer, message.byteOffset + i + 1, 4).readUInt32BE(0)
    const body = message.subarray(i + 5, i + 1 + len)
    if (type === 0x50) { const [name, at] = cstr(body, 0); const [text] = cstr(body, at); names.set(name, text.replace(/\s+/g, " ").slice(0, 100)) }
    if (type === 0x42) { const [portal, at] = cstr(body, 0); const [name] = cstr(body, at); const t = names.get(name) ?? name; counts.set(t, (counts.get(t) ?? 0) + 1) }
    if (type === 0x51) { const [text] = cstr(body, 0); const t = "Q " + text.replace(/\s+/g, " ").slice(0, 60); counts.set(t, (counts.get(t) ?? 0) + 1) }
    i += 1 + len
  }
  total++
  const s = performance.now(); try { return orig.call(this, message, ...rest) } finally { ms += performance.now() - s }
}
let window0
const ready = setInterval(() => {}, 1000)
process.on("message", () => {})
setTimeout(() => { counts.clear(); total = 0; ms = 0; window0 = Date.now() }, Number(process.env.CLEAR_AT ?? 25000)).unref()
setTimeout(() => {
  const secs = (Date.now() - window0) / 1000
  console.error(`=== PGLITE over ${secs.toFixed(1)} s idle: ${total} exec calls, ${ms.toFixed(1)} ms inside PGlite ===`)
  for (const [t, n] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.error(n, t)
  clearInterval(ready)
}, Number(process.env.PRINT_AT ?? 45000)).unref()
