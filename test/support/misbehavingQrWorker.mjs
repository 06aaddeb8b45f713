// A QR render thread (control/links/qr/qrWorker.ts) that misbehaves on purpose for some texts:
// "crash" ends the thread mid-render, "hang" keeps it busy for ever (until it is terminated).
// Any other text is drawn by the real thread code, loaded after this listener.
import { register } from "tsx/esm/api"
import { parentPort } from "node:worker_threads"

register()
parentPort.on("message", (message) => {
  if (message?.text === "crash") process.exit(3)
  if (message?.text === "hang") for (;;) {}
})
await import("../../control/links/qr/qrWorker.ts")
