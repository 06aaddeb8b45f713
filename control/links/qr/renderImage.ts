import QRCode from "qrcode"
import type { QrRenderOptions, RenderedQr } from "../../../shared/qr/qrWorkerMessages.ts"

/**
 * Drawing the code, which a render thread does (qrWorker.ts): a 2048-pixel PNG costs about half a
 * second of CPU, which on control's event loop would hold every other request for as long.
 */
const renderOptions = (o: QrRenderOptions) => ({
  errorCorrectionLevel: "M" as const,
  margin: o.margin,
  width: o.size,
  color: { dark: `#${o.color}ff`, light: `#${o.background}ff` }
})

/** The code of `text` as PNG bytes or SVG text. */
export const renderQr = async (text: string, o: QrRenderOptions): Promise<RenderedQr> =>
  o.format === "png"
    ? { format: "png", body: new Uint8Array(await QRCode.toBuffer(text, { ...renderOptions(o), type: "png" })) }
    : { format: "svg", body: await QRCode.toString(text, { ...renderOptions(o), type: "svg" }) }
