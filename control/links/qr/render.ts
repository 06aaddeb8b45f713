import { ValidationFailed } from "../../kernel/errors.ts"
import type { QrRenderOptions } from "../../../shared/qr/qrWorkerMessages.ts"
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

export type QrOptions = QrRenderOptions

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
