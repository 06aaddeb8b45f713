import { Reader, type Response } from "maxmind"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { BoundedMemo } from "../visitors/boundedMemo.ts"

export interface GeoInfo {
  readonly country: string | null
  readonly region: string | null
  readonly city: string | null
}

const NONE: GeoInfo = { country: null, region: null, city: null }

/** The CC0 country database shipped with the package: IPv4 and IPv6 in one file, so no family mix-up. */
export const bundledCountryDatabase = (): string =>
  createRequire(import.meta.url).resolve("@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb")

interface CityRecord {
  // ip-location-db layout
  country_code?: string
  state1?: string
  city?: string | { names?: Record<string, string> }
  // MaxMind GeoLite2/GeoIP2 layout
  country?: { iso_code?: string }
  subdivisions?: ReadonlyArray<{ iso_code?: string; names?: Record<string, string> }>
}

// Proxies say XX (unknown) or T1 (Tor) rather than leave the header out.
const NOT_A_COUNTRY = new Set(["XX", "T1", "ZZ"])

const countryCode = (value: string | undefined | null): string | null => {
  if (value === undefined || value === null || !/^[A-Za-z]{2}$/.test(value)) return null
  const code = value.toUpperCase()
  return NOT_A_COUNTRY.has(code) ? null : code
}

/**
 * Where a visitor is: the trusted proxy header when configured (CF-IPCountry and the like), else
 * the country database; region and city only when a city database is configured.
 */
/**
 * `::ffff:1.2.3.4` as `1.2.3.4`: a proxy on a dual-stack socket forwards IPv4 visitors so, and
 * the databases hold them under their IPv4 address only.
 */
const unmapped = (ip: string): string =>
  ip.length > 7 && ip.charCodeAt(0) === 58 && /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(ip) ? ip.slice(7) : ip

export const makeGeoLookup = (options: {
  readonly header: string | undefined
  readonly countryDatabase: string | undefined
  readonly cityDatabase: string | undefined
}) => {
  const country = options.countryDatabase === undefined
    ? undefined
    : new Reader<Response & { country_code?: string; country?: { iso_code?: string } }>(readFileSync(options.countryDatabase))
  const city = options.cityDatabase === undefined ? undefined : new Reader<Response & CityRecord>(readFileSync(options.cityDatabase))
  const header = options.header?.toLowerCase()

  // Visitors come back: an address looked up a moment ago is answered from memory.
  const memo = new BoundedMemo<string | null>(8192, 64)
  const lookupCountry = (ip: string): string | null => {
    if (country === undefined || ip === "") return null
    const known = memo.get(ip)
    if (known !== undefined) return known
    let code: string | null
    try {
      const record = country.get(unmapped(ip))
      code = countryCode(record?.country_code ?? record?.country?.iso_code)
    } catch {
      code = null
    }
    memo.set(ip, code)
    return code
  }

  return {
    /** Only the country: what geo rules need on the hot path. */
    country: (ip: string, headerValue: string): string | null =>
      (header !== undefined ? countryCode(headerValue) : null) ?? lookupCountry(ip),
    headerName: header,
    /** Country, region and city, for the click record (off the hot path). */
    locate: (ip: string, headerValue: string): GeoInfo => {
      const fromHeader = header !== undefined ? countryCode(headerValue) : null
      if (city === undefined || ip === "") return fromHeader === null && ip === "" ? NONE : { country: fromHeader ?? lookupCountry(ip), region: null, city: null }
      let record: CityRecord | null = null
      try {
        record = city.get(unmapped(ip))
      } catch {
        record = null
      }
      const cityName = typeof record?.city === "string" ? record.city : record?.city?.names?.en ?? null
      return {
        country: fromHeader ?? countryCode(record?.country_code ?? record?.country?.iso_code) ?? lookupCountry(ip),
        region: record?.state1 ?? record?.subdivisions?.[0]?.names?.en ?? null,
        city: cityName
      }
    }
  }
}

export type GeoLookup = ReturnType<typeof makeGeoLookup>
