import { createHash } from "node:crypto"
import { randomBase62 } from "../../shared/ids.ts"

export const KEY_PREFIX = "rico_"
const KEY_PATTERN = /^rico_[0-9A-Za-z]{24,128}$/

/** A new key: the brand prefix and 32 random base62 characters (190 bits). Shown once. */
export const generateApiKey = (): string => `${KEY_PREFIX}${randomBase62(32)}`

/** Only this hash is stored; a leaked table does not leak usable keys. */
export const hashApiKey = (key: string): string => createHash("sha256").update(key).digest("hex")

/** What a dashboard may show to tell keys apart. */
export const displayPrefix = (key: string): string => key.slice(0, KEY_PREFIX.length + 4)

export const looksLikeApiKey = (key: string): boolean => KEY_PATTERN.test(key)

/** The key from `Authorization: Bearer rico_…`, or undefined when the header is missing or malformed. */
export const bearerToken = (header: string | undefined): string | undefined => {
  if (header === undefined) return undefined
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
  return match === null ? undefined : match[1]
}
