import { isIP } from "node:net"

/**
 * Where a webhook may send (SSRF): https to a public address. A receiver on this machine
 * (http or https on 127.0.0.1, [::1] or localhost) only when the installation allows loopback
 * receivers. Names are checked again when a delivery connects (see send.ts): a public name that
 * resolves to a private address is refused then.
 */

const v4Number = (address: string): number => address.split(".").reduce((n, part) => n * 256 + Number(part), 0)

const V4_PRIVATE: ReadonlyArray<readonly [string, number]> = [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12],
  ["192.0.0.0", 24], ["192.0.2.0", 24], ["192.168.0.0", 16], ["198.18.0.0", 15], ["198.51.100.0", 24],
  ["203.0.113.0", 24], ["224.0.0.0", 4], ["240.0.0.0", 4]
]

const inV4Range = (address: string, [base, bits]: readonly [string, number]): boolean =>
  Math.floor(v4Number(address) / 2 ** (32 - bits)) === Math.floor(v4Number(base) / 2 ** (32 - bits))

export const isLoopbackAddress = (address: string): boolean => {
  const bare = address.replace(/^\[|\]$/g, "").toLowerCase()
  if (isIP(bare) === 4) return inV4Range(bare, ["127.0.0.0", 8])
  return bare === "::1" || /^::ffff:(127\.|7f[0-9a-f]{2}:)/.test(bare)
}

/** Not routable on the public internet: private, loopback, link-local, shared, reserved, multicast. */
export const isPrivateAddress = (address: string): boolean => {
  const bare = address.replace(/^\[|\]$/g, "").toLowerCase()
  const family = isIP(bare)
  if (family === 4) return V4_PRIVATE.some((range) => inV4Range(bare, range))
  if (family !== 6) return false
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare)
  if (mapped !== null) return isPrivateAddress(mapped[1])
  // The URL parser writes an IPv4-mapped address in hex: [::ffff:10.0.0.1] becomes [::ffff:a00:1].
  const mappedHex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(bare)
  if (mappedHex !== null) {
    const [high, low] = [parseInt(mappedHex[1], 16), parseInt(mappedHex[2], 16)]
    return isPrivateAddress(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`)
  }
  if (bare === "::" || bare === "::1") return true
  const first = parseInt(bare.split(":")[0] || "0", 16)
  // fc00::/7 unique local, fe80::/10 link-local, ff00::/8 multicast, 2001:db8::/32 documentation.
  return (first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80 || (first & 0xff00) === 0xff00 || bare.startsWith("2001:db8:")
}

const LOCAL_NAMES = /(^|\.)(localhost|local|internal|localdomain|home\.arpa)$/i

const isLoopbackHost = (hostname: string): boolean => hostname.toLowerCase() === "localhost" || isLoopbackAddress(hostname)

/** Why `raw` cannot be a webhook URL, or undefined when it can. */
export const refuseTarget = (raw: string, allowLoopback: boolean): string | undefined => {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return "Expected an absolute https URL"
  }
  if (url.username !== "" || url.password !== "") return "A webhook URL cannot carry credentials; authenticate the signature instead"
  if (allowLoopback && isLoopbackHost(url.hostname) && (url.protocol === "http:" || url.protocol === "https:")) return undefined
  if (url.protocol !== "https:") return "Expected an https URL"
  const host = url.hostname.replace(/\.$/, "")
  if (isLoopbackHost(host) || isPrivateAddress(host) || LOCAL_NAMES.test(host)) {
    return "A webhook URL must point to a public address, not a private, loopback or local one"
  }
  if (isIP(host.replace(/^\[|\]$/g, "")) === 0 && !host.includes(".")) return "Expected a fully qualified host name"
  return undefined
}
