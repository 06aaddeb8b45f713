import { HttpServerResponse } from "effect/http"
import type { RenderedQr } from "../../../shared/qr/qrWorkerMessages.ts"

/**
 * An SVG opened on its own (a link to the image, a new tab) is a document of this origin, the
 * dashboard's and the session cookie's, and SVG can carry script. Ours carries none, and this
 * policy keeps it so whatever the renderer writes: no script, no loads, and a sandbox (a unique
 * origin, no script, no forms, no top navigation). Its colours are attributes; inline styles
 * are allowed as they cannot run code.
 */
export const SVG_POLICY = "default-src 'none'; style-src 'unsafe-inline'; sandbox"

/** The answer of GET /v1/links/{id}/qr for a rendered image. */
export const qrResponse = (image: RenderedQr): HttpServerResponse.HttpServerResponse =>
  image.format === "svg"
    ? HttpServerResponse.text(image.body, { contentType: "image/svg+xml", headers: { "content-security-policy": SVG_POLICY } })
    : HttpServerResponse.uint8Array(image.body, { contentType: "image/png" })
