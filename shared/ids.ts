import { randomBytes, randomInt } from "node:crypto"

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

/** Uniform random base62 text: rejection sampling keeps every character equally likely. */
export const randomBase62 = (length: number): string => {
  let out = ""
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62]
      if (out.length === length) break
    }
  }
  return out
}

/**
 * Resource ids: a short type prefix (so an id pasted in the wrong place is recognisable)
 * and 20 random base62 characters (119 bits).
 */
export type IdPrefix = "ws" | "usr" | "key" | "ses" | "dom" | "lnk" | "tag" | "fld" | "imp" | "wh" | "inv"
export const newId = (prefix: IdPrefix): string => `${prefix}_${randomBase62(20)}`

/** A random slug as the spec prescribes: 7 characters of [0-9A-Za-z]. */
export const randomSlug = (): string => {
  let out = ""
  for (let i = 0; i < 7; i++) out += BASE62[randomInt(62)]
  return out
}
