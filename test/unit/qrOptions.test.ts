import { describe, expect, it } from "vitest"
import { contrastRatio, qrOptions } from "../../control/links/qr/render.ts"

describe("QR code options", () => {
  it.each([
    ["000000", "ffffff", 21],
    ["ffffff", "ffffff", 1],
    ["777777", "ffffff", 4.48]
  ])("contrast of %s on %s is %d:1", (dark, light, ratio) => {
    expect(contrastRatio(dark, light)).toBeCloseTo(ratio, 1)
  })

  it.each([
    [{}, { format: "png", size: 512, margin: 4, color: "000000", background: "ffffff" }],
    [{ format: "svg", size: 64, margin: 0, color: "#1A2B3C", background: "#FFFFFF" }, { format: "svg", size: 64, margin: 0, color: "1a2b3c", background: "ffffff" }]
  ] as const)("takes %j", (query, options) => {
    expect(qrOptions(query)).toEqual(options)
  })

  it.each([
    [{ color: "ffffff" }],
    [{ color: "ffffff", background: "000000" }],
    [{ color: "777777", background: "888888" }]
  ])("refuses colors a reader cannot tell apart: %j", (query) => {
    const result = qrOptions(query)
    expect(result).toMatchObject({ _tag: "ValidationFailed", issues: [{ path: ["color"] }] })
  })
})
