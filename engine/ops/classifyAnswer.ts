import { explainAudience } from "../visitors/audience.ts"
import { identifyBrowser } from "../visitors/browserLayer.ts"

/**
 * GET /classify on the engine's operator port: how a User-Agent (and optionally a
 * `Signature-Agent` header) is counted, with the rule that decided it and what the user-agent
 * parser recognised, so an operator can see why a visit was counted as it was
 * (docs/decisions.md#who-clicked). `ua` is required (an empty one is a question too: how is a
 * request without a User-Agent counted?). Query values are form-decoded: `+` is a space, so
 * encode the string (`curl -G --data-urlencode "ua=..."`).
 */
export const classifyAnswer = (requestUrl: string): readonly [status: number, body: unknown] => {
  // URLSearchParams never throws, whatever the request target holds (new URL can).
  const questionMark = requestUrl.indexOf("?")
  const query = new URLSearchParams(questionMark < 0 ? "" : requestUrl.slice(questionMark + 1))
  const userAgent = query.get("ua")
  if (userAgent === null) {
    return [400, { error: { code: "bad_request", message: "Give the User-Agent to classify as ?ua=… (URL-encoded), and a Signature-Agent header as &signatureAgent=… if there was one" } }]
  }
  const signatureAgent = query.get("signatureAgent") ?? undefined
  const { audience, rule, evidence } = explainAudience(userAgent, signatureAgent)
  const parsed = identifyBrowser(userAgent)
  const device = parsed.device()
  return [
    200,
    {
      userAgent,
      signatureAgent: signatureAgent ?? null,
      audience,
      counted: audience !== "bot",
      rule,
      evidence,
      parsed: {
        browser: parsed.browser ?? null,
        browserVersion: parsed.browserVersion ?? null,
        engine: parsed.engine ?? null,
        os: parsed.os ?? null,
        device: { type: device.type ?? null, vendor: device.vendor ?? null, model: device.model ?? null }
      }
    }
  ]
}
