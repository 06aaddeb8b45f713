import { Schema } from "effect"

/**
 * The messages between control's main thread and its QR render threads (control/links/qr/
 * QrRenderPool.ts and qrWorker.ts): the main thread owns the HTTP server, the queue and the
 * cache; a render thread turns a text and its options into an image. Each end decodes what it
 * receives against these.
 */

/** What a render takes besides the text: every parameter of GET /v1/links/{id}/qr, resolved. */
export const QrRenderOptions = Schema.Struct({
  format: Schema.Literals(["png", "svg"]),
  size: Schema.Int,
  margin: Schema.Int,
  /** `rrggbb`, lower case. */
  color: Schema.String,
  background: Schema.String
})
export type QrRenderOptions = typeof QrRenderOptions.Type

export const RenderedQr = Schema.Union([
  Schema.Struct({ format: Schema.Literal("png"), body: Schema.Uint8Array }),
  Schema.Struct({ format: Schema.Literal("svg"), body: Schema.String })
])
export type RenderedQr = typeof RenderedQr.Type

/** From the main thread to a render thread; `id` pairs a render with its answer. */
export const ToQrWorker = Schema.Union([
  Schema.Struct({ type: Schema.Literal("render"), id: Schema.Int, text: Schema.String, options: QrRenderOptions })
])
export type ToQrWorker = typeof ToQrWorker.Type

/** From a render thread to the main thread. */
export const FromQrWorker = Schema.Union([
  /** Loaded and listening: renders may be sent. */
  Schema.Struct({ type: Schema.Literal("ready") }),
  Schema.Struct({ type: Schema.Literal("rendered"), id: Schema.Int, image: RenderedQr }),
  /** The renderer refused the text (longer than a QR code holds); not worth a retry. */
  Schema.Struct({ type: Schema.Literal("failed"), id: Schema.Int, error: Schema.String })
])
export type FromQrWorker = typeof FromQrWorker.Type
