/**
 * IP addresses as numbers, so ranges are compared on bits rather than on how an address happens
 * to be written (`::127.0.0.1`, `::7f00:1` and `0:0:0:0:0:0:7f00:1` are one address). Parsed
 * character by character: an IPv6 address is expanded to its 128 bits (the `::` run filled in, a
 * trailing dotted IPv4 part taken as its last 32 bits) or refused.
 */
export type IpAddress =
  | { readonly family: 4; readonly value: bigint }
  | { readonly family: 6; readonly value: bigint }

const isDigit = (c: string): boolean => c >= "0" && c <= "9"

const hexValue = (c: string): number => {
  if (isDigit(c)) return c.charCodeAt(0) - 48
  const lower = c.toLowerCase()
  return lower >= "a" && lower <= "f" ? lower.charCodeAt(0) - 87 : -1
}

/** Dotted decimal, four parts of 0-255 without leading zeros (which some stacks read as octal). */
export const parseIpv4 = (text: string): bigint | undefined => {
  const parts = text.split(".")
  if (parts.length !== 4) return undefined
  let value = 0n
  for (const part of parts) {
    if (part.length === 0 || part.length > 3 || (part.length > 1 && part[0] === "0")) return undefined
    for (const c of part) if (!isDigit(c)) return undefined
    const n = Number(part)
    if (n > 255) return undefined
    value = (value << 8n) | BigInt(n)
  }
  return value
}

/** One group of 1-4 hex digits. */
const parseGroup = (text: string): number | undefined => {
  if (text.length === 0 || text.length > 4) return undefined
  let n = 0
  for (const c of text) {
    const digit = hexValue(c)
    if (digit < 0) return undefined
    n = n * 16 + digit
  }
  return n
}

/** The groups of one side of `::` (or of the whole address): 16-bit numbers, a dotted IPv4 tail as two. */
const parseGroups = (text: string, tailMayBeIpv4: boolean): Array<number> | undefined => {
  if (text === "") return []
  const parts = text.split(":")
  const groups: Array<number> = []
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]
    if (tailMayBeIpv4 && i === parts.length - 1 && part.includes(".")) {
      const v4 = parseIpv4(part)
      if (v4 === undefined) return undefined
      groups.push(Number(v4 >> 16n), Number(v4 & 0xffffn))
      continue
    }
    const group = parseGroup(part)
    if (group === undefined) return undefined
    groups.push(group)
  }
  return groups
}

/** The 128 bits of an IPv6 address in text form; a zone (`%eth0`) is not an address here. */
export const parseIpv6 = (text: string): bigint | undefined => {
  if (text.length === 0 || text.length > 45) return undefined
  const gap = text.indexOf("::")
  let groups: Array<number>
  if (gap === -1) {
    const all = parseGroups(text, true)
    if (all === undefined || all.length !== 8) return undefined
    groups = all
  } else {
    if (text.indexOf("::", gap + 1) !== -1) return undefined
    const head = parseGroups(text.slice(0, gap), false)
    const tail = parseGroups(text.slice(gap + 2), true)
    // `::` stands for at least one group of zeros.
    if (head === undefined || tail === undefined || head.length + tail.length > 7) return undefined
    groups = [...head, ...Array<number>(8 - head.length - tail.length).fill(0), ...tail]
  }
  return groups.reduce((value, group) => (value << 16n) | BigInt(group), 0n)
}

/** An address as a URL host or a resolver writes it (IPv6 with or without brackets), or undefined. */
export const parseIp = (text: string): IpAddress | undefined => {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text
  const v4 = parseIpv4(bare)
  if (v4 !== undefined) return { family: 4, value: v4 }
  const v6 = parseIpv6(bare)
  return v6 === undefined ? undefined : { family: 6, value: v6 }
}

export const formatIpv4 = (value: bigint): string =>
  [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join(".")

/** A prefix `base/bits` of one family, for range tables written as text. */
export interface Prefix {
  readonly family: 4 | 6
  readonly base: bigint
  readonly bits: number
}

export const parsePrefix = (text: string): Prefix => {
  const [address, length] = text.split("/")
  const ip = parseIp(address)
  const bits = Number(length)
  const width = ip?.family === 4 ? 32 : 128
  if (ip === undefined || !Number.isInteger(bits) || bits < 0 || bits > width) throw new Error(`not a prefix: ${text}`)
  return { family: ip.family, base: ip.value, bits }
}

export const inPrefix = (address: IpAddress, prefix: Prefix): boolean => {
  if (address.family !== prefix.family) return false
  const shift = BigInt((address.family === 4 ? 32 : 128) - prefix.bits)
  return address.value >> shift === prefix.base >> shift
}
