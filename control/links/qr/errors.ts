import { ApiError } from "../../kernel/errors.ts"

/** Seconds a client is asked to wait before asking again for a code the renderer had no room for. */
export const QR_RETRY_AFTER_SECONDS = 2

/**
 * 503: the render queue (or the workspace's share of it) is full, or the render was lost with
 * its thread. The spec's codes are a closed list without one for this: `internal_server_error`,
 * with 503 and Retry-After saying it is temporary, as for an unavailable database.
 */
export class QrRendererBusy extends ApiError<QrRendererBusy>()("QrRendererBusy", {
  code: "internal_server_error",
  description: "QR rendering is busy (the queue, or this workspace's share of it, is full) or the render was lost " +
    `(internal_server_error); retry after Retry-After (${QR_RETRY_AFTER_SECONDS} s)`,
  retryAfterSeconds: QR_RETRY_AFTER_SECONDS
}) {}
