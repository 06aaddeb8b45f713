import { describe, expect, it } from "vitest"
import { type DeviceNames, readUserAgent, softwareTokens } from "../../engine/visitors/userAgentTokens.ts"

const NO_DEVICE: DeviceNames = { model: undefined, vendor: undefined }

describe("readUserAgent: products and comments, never failing", () => {
  it.each([
    [
      "Mozilla/5.0 (Linux; Android 14; Cubot X30 Build/UP1A) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
      ["Mozilla", "AppleWebKit", "Chrome", "Mobile", "Safari"],
      [["Linux", "Android 14", "Cubot X30 Build/UP1A"], ["KHTML", "like Gecko"]]
    ],
    // An in-app browser's bracketed group; a comment glued to a token; one left open.
    ["Mozilla/5.0 (iPhone) Mobile/15E148 [FBAN/FBIOS;FBAV/91.0]", ["Mozilla", "Mobile"], [["iPhone"], ["FBAN/FBIOS", "FBAV/91.0"]]],
    ["Mozilla/5.0(SmartHub;SMART-TV;U;Linux/SmartTV;Maple2012).", ["Mozilla"], [["SmartHub", "SMART-TV", "U", "Linux/SmartTV", "Maple2012"]]],
    ["Opera/9.80 (Linux sh4; U; HbbTV/1.1.1 (; Humax; iCord MINI; ); en", ["Opera"], [["Linux sh4", "U", "HbbTV/1.1.1", "Humax", "iCord MINI", "en"]]],
    ["", [], []],
    ["))((", ["))"], [[]]]
  ])("%s", (ua, products, comments) => {
    const parts = readUserAgent(ua)
    expect(parts.products.map((product) => product.name)).toEqual(products)
    expect(parts.commentEntries).toEqual(comments)
  })
})

describe("softwareTokens: what may name the software, and what names the platform or device", () => {
  const tokensOf = (ua: string, device: DeviceNames = NO_DEVICE) => softwareTokens(readUserAgent(ua), device).map((token) => [token.text, token.inPlatform])

  it("marks the first comment's plain entries and Android's locale and model as platform", () => {
    expect(tokensOf("Mozilla/5.0 (Linux; U; Android 4.2.2; en-us; CUBOT GT72E Build/JDQ39) AppleWebKit/534.30 (KHTML, like Gecko) Version/4.0 Mobile Safari/534.30")).toEqual([
      ["Mozilla/5.0", false],
      ["AppleWebKit/534.30", false],
      ["Version/4.0", false],
      ["Mobile", false],
      ["Safari/534.30", false],
      ["Linux", true],
      ["U", true],
      ["en-us", true],
      ["KHTML", false],
      ["like Gecko", false]
    ])
  })

  it("counts the entry after compatible and product-shaped entries as software, wherever they stand", () => {
    expect(tokensOf("Mozilla/5.0 (compatible; Bytespider; spider-feedback@bytedance.com)")).toContainEqual(["Bytespider", false])
    expect(tokensOf("Mozilla/5.0 (Linux; Android 8.0; Pixel 2 Build/OPD3.170816.012; Storebot-Google/1.0) AppleWebKit/537.36")).toContainEqual(["Storebot-Google/1.0", false])
  })

  it("leaves out the device the parser found where a device can stand, and only there", () => {
    const device = { model: "6300", vendor: "Nokia" }
    expect(tokensOf("Nokia6300/2.0 (05.00) Profile/MIDP-2.0 Configuration/CLDC-1.1", device).map(([text]) => text)).toEqual(["Profile/MIDP-2.0", "Configuration/CLDC-1.1", "05.00"])
    // A later product is software even when the parser read a model into it.
    expect(tokensOf("Mozilla/5.0 (Mobile; Cubot; rv:48.0) Gecko/48.0 Firefox/48.0 KAIOS/2.5 sC6Bot/1.0", { model: "sC6", vendor: "Samsung" })).toContainEqual(["sC6Bot/1.0", false])
  })
})
