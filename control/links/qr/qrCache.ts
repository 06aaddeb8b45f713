import { LRUCache } from "lru-cache"
import type { QrRenderOptions, RenderedQr } from "../../../shared/qr/qrWorkerMessages.ts"

/**
 * Images already drawn, so that asking again for the same code costs no render (and is answered
 * even while the render queue is full).
 *
 * The key is the link, the text the code encodes and every rendering parameter. The image is a
 * function of the text and the parameters alone, and the text is the link's shortLink as it is
 * now (read from the database on every request, as the link is): a changed slug or domain is a
 * new key, so an edit is never answered with the old image. Other edits (title, destination) do
 * not change the code and keep their entry. The link's id keeps each workspace's entries its own.
 */
export const qrCacheKey = (linkId: string, text: string, options: QrRenderOptions): string =>
  JSON.stringify([linkId, text, options.format, options.size, options.margin, options.color, options.background])

/** A 2048-pixel PNG is about 20 kB, an SVG a few: the defaults hold thousands of codes. */
export const QR_CACHE_ENTRIES = 2_000
export const QR_CACHE_BYTES = 32 * 1024 * 1024

const bytesOf = (image: RenderedQr) => (image.format === "png" ? image.body.byteLength : Buffer.byteLength(image.body))

/** Least recently used first out, bounded by entries and by bytes. */
export const makeQrCache = (entries = QR_CACHE_ENTRIES, bytes = QR_CACHE_BYTES) =>
  new LRUCache<string, RenderedQr>({ max: entries, maxSize: bytes, sizeCalculation: (image) => Math.max(1, bytesOf(image)) })

export type QrCache = ReturnType<typeof makeQrCache>
