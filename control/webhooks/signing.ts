import { createHmac, randomBytes } from "node:crypto"

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the secret is `whsec_` and the
 * base64 of random bytes; a delivery carries `webhook-id`, `webhook-timestamp` (Unix seconds) and
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body" keyed by the decoded secret>`.
 */
export const SECRET_PREFIX = "whsec_"

export const newSecret = (): string => SECRET_PREFIX + randomBytes(32).toString("base64")

export const sign = (secret: string, messageId: string, timestampSeconds: number, body: string): string => {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), "base64")
  return "v1," + createHmac("sha256", key).update(`${messageId}.${timestampSeconds}.${body}`).digest("base64")
}

/** The headers of one delivery attempt; the id stays the same across retries so receivers can dedupe. */
export const signedHeaders = (secret: string, messageId: string, body: string, now: Date): Record<string, string> => {
  const timestamp = Math.floor(now.getTime() / 1000)
  return {
    "content-type": "application/json",
    "webhook-id": messageId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": sign(secret, messageId, timestamp, body)
  }
}
