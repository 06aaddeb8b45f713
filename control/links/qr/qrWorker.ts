import { parentPort } from "node:worker_threads"
import { type FromQrWorker, ToQrWorker } from "../../../shared/qr/qrWorkerMessages.ts"
import { receiver } from "../../../shared/messages/receiver.ts"
import { installConsoleLogging } from "../../../shared/logging/installLogging.ts"
import { lowerThreadPriority } from "../../../shared/threads/threadPriority.ts"
import { renderQr } from "./renderImage.ts"

/**
 * A QR render thread (QrRenderPool.ts): one render at a time, sent by the main thread, answered
 * with the image. It runs at a lower priority than the thread serving the API, so that on a
 * machine whose cores are all busy the kernel gives the API the core first: a tenant's renders
 * wait, other tenants' requests do not.
 */
const QR_WORKER_NICE = 10

installConsoleLogging()
lowerThreadPriority(QR_WORKER_NICE, "QR render thread")
const port = parentPort!
const send = (message: FromQrWorker, transfer: ReadonlyArray<ArrayBuffer> = []) => port.postMessage(message, transfer as Array<ArrayBuffer>)
const receive = receiver("QR render thread", ToQrWorker)

port.on("message", (received: unknown) => {
  const message = receive(received)
  if (message === undefined) return
  renderQr(message.text, message.options).then(
    (image) => send({ type: "rendered", id: message.id, image }, image.format === "png" ? [image.body.buffer as ArrayBuffer] : []),
    (error) => send({ type: "failed", id: message.id, error: error instanceof Error ? error.message : String(error) })
  )
})
send({ type: "ready" })
