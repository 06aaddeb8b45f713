import { describe, expect, it } from "vitest"
import { shortLinkUrl } from "../../shared/links/shortLink.ts"

describe("shortLinkUrl", () => {
  it.each<readonly [string, Parameters<typeof shortLinkUrl>[0], string]>([
    ["https, the scheme's port", { linkScheme: "https", linkPort: undefined }, "https://ws.short.example/hello"],
    ["http with the engine's port", { linkScheme: "http", linkPort: 8080 }, "http://ws.short.example:8080/hello"],
    ["http, the scheme's port", { linkScheme: "http", linkPort: undefined }, "http://ws.short.example/hello"]
  ])("%s", (_case, base, expected) => {
    expect(shortLinkUrl(base, "ws.short.example", "hello")).toBe(expected)
  })
})
