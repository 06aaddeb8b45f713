import { describe, expect, it } from "vitest"
import { classifyAnswer } from "../../engine/ops/classifyAnswer.ts"

const TV = "Mozilla/5.0 (SMART-TV; LINUX; Tizen 3.0) AppleWebKit/538.1 (KHTML, like Gecko) Version/3.0 TV Safari/538.1"

describe("GET /classify on the operator port", () => {
  it("explains a User-Agent: audience, whether it is counted, the rule, its evidence and what the parser recognised", () => {
    const [status, body] = classifyAnswer(`/classify?ua=${encodeURIComponent(TV)}`)
    expect(status).toBe(200)
    expect(body).toEqual({
      userAgent: TV,
      signatureAgent: null,
      audience: "people",
      counted: true,
      rule: "browser",
      evidence: expect.stringContaining("Tizen"),
      parsed: { browser: "Safari", browserVersion: "3.0", engine: "WebKit", os: "Tizen", device: { type: "smarttv", vendor: null, model: null } }
    })
  })

  it.each([
    ["kube-probe/1.15", "bot", false, "bot-family"],
    ["", "bot", false, "empty"],
    ["Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)", "agent", true, "agent-vendor"]
  ])("%j is %s (counted: %s) by %s", (ua, audience, counted, rule) => {
    expect(classifyAnswer(`/classify?ua=${encodeURIComponent(ua)}`)).toEqual([200, expect.objectContaining({ audience, counted, rule })])
  })

  it("takes a Signature-Agent header as signatureAgent", () => {
    expect(classifyAnswer(`/classify?ua=curl%2F8.5.0&signatureAgent=${encodeURIComponent('"https://chatgpt.com"')}`)).toEqual([
      200,
      expect.objectContaining({ audience: "agent", rule: "signature-agent", signatureAgent: '"https://chatgpt.com"' })
    ])
  })

  it.each([["/classify"], ["/classify?"], ["/classify?user-agent=x"], ["/classify?%zz"]])("answers %s without ua with the spec's 400 body", (target) => {
    expect(classifyAnswer(target)).toEqual([400, { error: { code: "bad_request", message: expect.stringContaining("?ua=") } }])
  })

  it("decodes malformed percent-encoding as forms are decoded (U+FFFD for a broken sequence) rather than failing", () => {
    expect(classifyAnswer("/classify?ua=%E0%A4%A")).toEqual([200, expect.objectContaining({ userAgent: "\uFFFD%A" })])
  })
})
