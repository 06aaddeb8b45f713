import QRCode from "qrcode"
import { ValidationFailed } from "../../api/errors.ts"
import type { RenderedQr } from "./qrResponse.ts"
import { QR_DEFAULT_MARGIN, QR_DEFAULT_SIZE, type QrQuery } from "./schema.ts"

/** Readers need dark modules on a light ground, clearly apart: a WCAG contrast ratio of at least this. */
export const MIN_CONTRAST = 3

const channels = (hex: string) => [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)

/** WCAG 2 relative luminance of a `rrggbb` color. */
const luminance = (hex: string): number => {
  const [r, g, b] = channels(hex).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4))
  return 0.2126 * r + 0.7152 * g + 0.0722 * b
}

export const contrastRatio = (dark: string, light: string): number => (luminance(light) + 0.05) / (luminance(dark) + 0.05)

export interface QrOptions {
  readonly format: "png" | "svg"
  readonly size: number
  readonly margin: number
  readonly color: string
  readonly background: string
}

/**
 * The options of a query, or the 422 of colors a reader could not tell apart. The dark color
 * must be the darker one: many readers cannot read an inverted code.
 */
export const qrOptions = (query: QrQuery): QrOptions | ValidationFailed => {
  const color = (query.color ?? "000000").replace(/^#/, "").toLowerCase()
  const background = (query.background ?? "ffffff").replace(/^#/, "").toLowerCase()
  if (contrastRatio(color, background) < MIN_CONTRAST) {
    return ValidationFailed.at(
      ["color"],
      `color must be darker than background with a contrast ratio of at least ${MIN_CONTRAST}:1, or readers cannot scan the code`
    )
  }
  return { format: query.format ?? "png", size: query.size ?? QR_DEFAULT_SIZE, margin: query.margin ?? QR_DEFAULT_MARGIN, color, background }
}

const renderOptions = (o: QrOptions) => ({
  errorCorrectionLevel: "M" as const,
  margin: o.margin,
  width: o.size,
  color: { dark: `#${o.color}ff`, light: `#${o.background}ff` }
})

/** The code of `text` as PNG bytes or SVG text. */
export const renderQr = async (text: string, o: QrOptions): Promise<RenderedQr> =>
  o.format === "png"
    ? { format: "png", body: new Uint8Array(await QRCode.toBuffer(text, { ...renderOptions(o), type: "png" })) }
    : { format: "svg", body: await QRCode.toString(text, { ...renderOptions(o), type: "svg" }) }
