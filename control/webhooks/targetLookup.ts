import { lookup as systemLookup, type LookupAddress, type LookupOptions } from "node:dns"
import { Resolver } from "node:dns/promises"
import { parseIp } from "./ipAddress.ts"
import { refuseAddress } from "./targetUrl.ts"

export type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | Array<LookupAddress>, family?: number) => void
export type TargetLookup = (hostname: string, options: LookupOptions, callback: LookupCallback) => void

const settle = <T>(promise: Promise<T>): Promise<T | Error> => promise.catch((error: Error) => error)

/**
 * The DNS lookup of a delivery's connection, which refuses a name with any address that is not
 * public (a public name pointed at an internal one, or rebinding between the URL check and the
 * connection): the address checked is the address connected to. It asks the servers of
 * RICOCHET_DNS_SERVERS when set (as domain verification does), else the system resolver.
 */
export const makeTargetLookup = (servers: ReadonlyArray<string>, allowLoopback: boolean): TargetLookup => {
  const resolver = servers.length > 0 ? new Resolver({ timeout: 2_000, tries: 2 }) : undefined
  if (resolver !== undefined) resolver.setServers([...servers])

  const resolve = async (hostname: string, family: number | undefined): Promise<Array<LookupAddress>> => {
    if (resolver === undefined || hostname.toLowerCase() === "localhost") {
      return new Promise((ok, fail) =>
        systemLookup(hostname, { family: family ?? 0, all: true }, (error, addresses) => (error ? fail(error) : ok(addresses))))
    }
    const [v4, v6] = await Promise.all([
      family === 6 ? [] : settle(resolver.resolve4(hostname)),
      family === 4 ? [] : settle(resolver.resolve6(hostname))
    ])
    const addresses = [
      ...(v4 instanceof Error ? [] : v4.map((address) => ({ address, family: 4 }))),
      ...(v6 instanceof Error ? [] : v6.map((address) => ({ address, family: 6 })))
    ]
    if (addresses.length === 0) throw v4 instanceof Error ? v4 : v6 instanceof Error ? v6 : Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" })
    return addresses
  }

  return (hostname, options, callback) => {
    resolve(hostname, options.family === 4 || options.family === 6 ? options.family : undefined).then(
      (addresses) => {
        for (const { address } of addresses) {
          const parsed = parseIp(address)
          const why = parsed === undefined ? "not an address" : refuseAddress(parsed, allowLoopback)
          if (why !== undefined) {
            return callback(Object.assign(new Error(`${hostname} resolves to ${address}, not a public address: ${why}`), { code: "EPRIVATE" }), [])
          }
        }
        if (options.all) return callback(null, addresses)
        callback(null, addresses[0].address, addresses[0].family)
      },
      (error: NodeJS.ErrnoException) => callback(error, [])
    )
  }
}
