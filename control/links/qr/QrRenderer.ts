import { Context, Effect, Layer } from "effect"
import { QrSettings } from "./QrSettings.ts"
import type { QrRenderOptions, RenderedQr } from "../../../shared/qr/qrWorkerMessages.ts"
import { QrRendererBusy } from "./errors.ts"
import { makeQrCache, qrCacheKey } from "./qrCache.ts"
import { type NotRendered, QrRenderPool } from "./QrRenderPool.ts"

/** What a client is told when its code was not drawn. */
const BUSY_MESSAGES: Record<NotRendered, string> = {
  queueFull: "QR rendering is busy",
  workspaceFull: "This workspace has as many QR codes being drawn as it may at once",
  waitedTooLong: "QR rendering is busy",
  threadLost: "The QR code could not be drawn",
  stopped: "The server is stopping"
}

export interface QrRendererShape {
  /** The code of `text` (the link's shortLink) with these options: from the cache, or drawn by a render thread. */
  readonly render: (workspaceId: string, linkId: string, text: string, options: QrRenderOptions) => Effect.Effect<RenderedQr, QrRendererBusy>
}

export class QrRenderer extends Context.Service<QrRenderer, QrRendererShape>()("ricochet/QrRenderer") {}

/**
 * The render threads (QrRenderPool.ts) and the cache in front of them (qrCache.ts), for the
 * server's lifetime. A workspace may hold a quarter of the queue, so at least four workspaces
 * must be rendering before one of them finds it full.
 */
export const QrRendererLayer = Layer.effect(QrRenderer)(Effect.gen(function*() {
  const { qrWorkers, qrQueue } = yield* QrSettings
  const cache = makeQrCache()
  const pool = yield* Effect.acquireRelease(
    Effect.sync(() =>
      QrRenderPool.start({
        threads: qrWorkers,
        maxWaiting: qrQueue,
        maxPerWorkspace: Math.max(1, Math.floor(qrQueue / 4)),
        onRendered: (key, image) => void cache.set(key, image)
      })
    ),
    (pool) => Effect.promise(() => pool.stop())
  )
  return {
    render: (workspaceId, linkId, text, options) => {
      const key = qrCacheKey(linkId, text, options)
      const cached = cache.get(key)
      if (cached !== undefined) return Effect.succeed(cached)
      return Effect.callback<RenderedQr, QrRendererBusy>((resume) => {
        const cancel = pool.render({ workspaceId, key, text, options }, (outcome) => {
          if (outcome.ok) return resume(Effect.succeed(outcome.image))
          // The renderer refusing the text is a defect: a short link always fits in a code.
          if (outcome.reason === "refused") return resume(Effect.die(new Error(`QR renderer refused the text: ${outcome.error}`)))
          resume(Effect.fail(new QrRendererBusy({ message: `${BUSY_MESSAGES[outcome.reason]}; retry in a moment` })))
        })
        return Effect.sync(cancel)
      })
    }
  }
}))
