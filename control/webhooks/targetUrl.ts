import { parseIp, type IpAddress } from "./ipAddress.ts"
import { isLoopback, notPublicBecause } from "./specialAddresses.ts"

/**
 * Where a webhook may send (SSRF): https to a public address (see specialAddresses.ts). A receiver
 * on this machine (http or https on 127.0.0.1, [::1] or localhost) only when the installation
 * allows loopback receivers. Names are checked again when a delivery connects (see send.ts): a
 * public name that resolves to an address that is not public is refused then.
 */

/** Why a delivery may not connect to this resolved address, or undefined when it may. */
export const refuseAddress = (address: IpAddress, allowLoopback: boolean): string | undefined =>
  allowLoopback && isLoopback(address) ? undefined : notPublicBecause(address)

const LOCAL_NAMES = /(^|\.)(localhost|local|internal|localdomain|home\.arpa)$/i

/** Why `raw` cannot be a webhook URL, or undefined when it can. */
export const refuseTarget = (raw: string, allowLoopback: boolean): string | undefined => {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return "Expected an absolute https URL"
  }
  if (url.username !== "" || url.password !== "") return "A webhook URL cannot carry credentials; authenticate the signature instead"
  const host = url.hostname.replace(/\.$/, "")
  // The URL parser has already turned every IPv4 spelling (0x7f.1, 2130706433) into dotted decimal.
  const address = parseIp(host)
  const loopback = address === undefined ? host.toLowerCase() === "localhost" : isLoopback(address)
  if (allowLoopback && loopback && (url.protocol === "http:" || url.protocol === "https:")) return undefined
  if (url.protocol !== "https:") return "Expected an https URL"
  const local = "A webhook URL must point to a public address, not a private, loopback or local one"
  if (address !== undefined) {
    const why = notPublicBecause(address)
    return why === undefined ? undefined : `${local} (${host} is ${why})`
  }
  if (loopback || LOCAL_NAMES.test(host)) return local
  if (!host.includes(".")) return "Expected a fully qualified host name"
  return undefined
}
