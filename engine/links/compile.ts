import { xxh32 } from "@node-rs/xxhash"
import type { DomainRecord, LinkRecord } from "../../shared/links/linkRecord.ts"
import { overlayQuery, utmPairs } from "../rules/query.ts"

export interface CompiledAbTest {
  readonly urls: ReadonlyArray<string>
  /** Upper bound (exclusive) of each variant's slice of [0, total). */
  readonly cumulative: ReadonlyArray<number>
  readonly total: number
  readonly endsAtMs: number
}

/**
 * A link compiled for the hot path: rules indexed, times as numbers, each possible destination
 * with the link's utm set already applied, so a cache hit does no parsing.
 */
export interface CompiledLink {
  readonly record: LinkRecord
  readonly status: 301 | 302 | 307 | 308
  /** Destination with utm applied, by raw destination; null when the link has no utm set. */
  readonly prepared: ReadonlyMap<string, string> | null
  readonly url: string
  readonly geo: ReadonlyMap<string, string> | null
  readonly device: { readonly ios?: string; readonly android?: string; readonly desktop?: string } | null
  readonly ab: CompiledAbTest | null
  readonly abSeed: number
  readonly expiresAtMs: number
  readonly passQuery: boolean
  readonly hasOpenGraph: boolean
  /** Rough size in memory, for the cache's byte bound. */
  readonly bytes: number
}

const time = (iso: string | null): number => (iso === null ? Number.POSITIVE_INFINITY : Date.parse(iso))

export const compileLink = (record: LinkRecord): CompiledLink => {
  const utm = utmPairs(record.utm)
  // Most links have no utm set: they need no second copy of their destinations.
  let prepared: Map<string, string> | null = null
  if (utm.length > 0) {
    const destinations = new Set<string>([record.url])
    for (const rule of record.geoRules) destinations.add(rule.url)
    for (const rule of record.deviceRules) destinations.add(rule.url)
    for (const variant of record.abTest?.variants ?? []) destinations.add(variant.url)
    prepared = new Map()
    for (const destination of destinations) prepared.set(destination, safeOverlay(destination, utm))
  }

  let ab: CompiledAbTest | null = null
  if (record.abTest !== null && record.abTest.variants.length > 1) {
    let total = 0
    const cumulative: Array<number> = []
    for (const variant of record.abTest.variants) cumulative.push((total += variant.weight))
    ab = { urls: record.abTest.variants.map((v) => v.url), cumulative, total, endsAtMs: time(record.abTest.endsAt) }
  }
  let device: { ios?: string; android?: string; desktop?: string } | null = null
  for (const rule of record.deviceRules) (device ??= {})[rule.device] = rule.url
  const geo = record.geoRules.length === 0 ? null : new Map(record.geoRules.map((r) => [r.country.toUpperCase(), r.url]))

  let bytes = 400 + record.slug.length + record.host.length + record.url.length
  for (const [raw, final] of prepared ?? []) bytes += raw.length + final.length
  bytes += (record.title?.length ?? 0) + (record.description?.length ?? 0) + (record.ogImageUrl?.length ?? 0)
  bytes += (record.passwordHash?.length ?? 0) + (record.expiredUrl?.length ?? 0)

  return {
    record,
    status: record.redirectType,
    prepared,
    url: record.url,
    geo,
    device,
    ab,
    abSeed: xxh32(record.id),
    expiresAtMs: time(record.expiresAt),
    passQuery: record.passQuery,
    hasOpenGraph: record.title !== null || record.description !== null || record.ogImageUrl !== null,
    bytes
  }
}

// Control only stores absolute http(s) URLs; a record that is not one is served unchanged.
const safeOverlay = (url: string, pairs: ReturnType<typeof utmPairs>): string => {
  try {
    return overlayQuery(url, pairs)
  } catch {
    return url
  }
}

/** A domain as the engine serves it. */
export interface CompiledDomain {
  readonly record: DomainRecord
  readonly serving: boolean
}

export const compileDomain = (record: DomainRecord): CompiledDomain => ({ record, serving: record.status === "verified" })
