import { Schema } from "effect"
import { HttpApiSchema } from "effect/http-api"

export const QR_FORMATS = ["png", "svg"] as const
export const QR_MIN_SIZE = 64
export const QR_MAX_SIZE = 2048
export const QR_DEFAULT_SIZE = 512
export const QR_MAX_MARGIN = 16
export const QR_DEFAULT_MARGIN = 4

const HexColor = Schema.String.check(
  Schema.makeFilter((s: string) => /^#?[0-9A-Fa-f]{6}$/.test(s) || "Expected a hex color such as 1a2b3c or #1a2b3c", {
    expected: "a hex color such as 1a2b3c or #1a2b3c"
  })
)

export const QrQuery = Schema.Struct({
  format: Schema.optionalKey(Schema.Literals(QR_FORMATS).annotate({ description: "png (default) or svg" })),
  size: Schema.optionalKey(
    Schema.Int.check(Schema.isBetween({ minimum: QR_MIN_SIZE, maximum: QR_MAX_SIZE })).annotate({
      description: `Width and height in pixels, ${QR_MIN_SIZE} to ${QR_MAX_SIZE} (default ${QR_DEFAULT_SIZE})`
    })
  ),
  margin: Schema.optionalKey(
    Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: QR_MAX_MARGIN })).annotate({
      description: `Quiet zone in modules, 0 to ${QR_MAX_MARGIN} (default ${QR_DEFAULT_MARGIN}, what the QR standard asks for)`
    })
  ),
  color: Schema.optionalKey(HexColor.annotate({ description: "Color of the dark modules (default 000000)" })),
  background: Schema.optionalKey(HexColor.annotate({ description: "Background color (default ffffff)" }))
}).annotate({ identifier: "QrQuery" })
export type QrQuery = typeof QrQuery.Type

/** The image: PNG by default, SVG with format=svg. */
export const QrImage = [
  Schema.Uint8Array.pipe(HttpApiSchema.asUint8Array({ contentType: "image/png" })),
  Schema.String.pipe(HttpApiSchema.asText({ contentType: "image/svg+xml" }))
] as const
