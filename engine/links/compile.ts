import { xxh32 } from "@node-rs/xxhash"
import type { DomainRecord, LinkRecord } from "../../shared/links/linkRecord.ts"
import { encodedParams, overlayQuery, type QueryParam, utmPairs } from "../rules/query.ts"
import { toLocationUrl } from "./locationUrl.ts"

export interface CompiledAbTest {
  /** Each variant's destination, utm applied. */
  readonly urls: ReadonlyArray<string>
  /** Upper bound (exclusive) of each variant's slice of [0, total). */
  readonly cumulative: ReadonlyArray<number>
  readonly total: number
  readonly endsAtMs: number
  /** Seeds the visitor's bucket, so the same visitor splits differently on different links. */
  readonly seed: number
}

/** Destination rules: a link with none carries one null instead of three. */
export interface CompiledRules {
  /** Destination by upper-case country code, utm applied. */
  readonly geo: ReadonlyMap<string, string> | null
  readonly device: { readonly ios?: string; readonly android?: string; readonly desktop?: string } | null
  readonly ab: CompiledAbTest | null
}

/** What few links have: kept apart so the many links without them carry one null instead. */
export interface CompiledExtras {
  /** Epoch ms, or null for a link that does not expire. */
  readonly expiresAtMs: number | null
  readonly passQuery: boolean
  readonly openInApp: boolean
  readonly openInBrowser: boolean
  readonly passwordHash: string | null
  readonly expiredUrl: string | null
  readonly title: string | null
  readonly description: string | null
  readonly ogImageUrl: string | null
  readonly hasOpenGraph: boolean
}

/**
 * A link compiled for the hot path: rules indexed, times as numbers, every destination encoded for
 * a Location header (toLocationUrl) with the link's utm set already applied, so a cache hit does
 * no parsing. Only what serving and counting
 * need is kept (a million of these sit in an engine's cache, every field 8 bytes each): no record,
 * no timestamps, and what few links use behind `rules` and `extras`.
 */
export interface CompiledLink {
  // Host and slug are the cache's key, and the request's: not repeated here.
  readonly id: string
  readonly workspaceId: string
  readonly status: 301 | 302 | 307 | 308
  /** The destination, utm applied. */
  readonly url: string
  readonly rules: CompiledRules | null
  readonly extras: CompiledExtras | null
}

const time = (iso: string | null): number => (iso === null ? Number.POSITIVE_INFINITY : Date.parse(iso))

/** Shares one copy of strings many links repeat (the workspace id). */
export type Intern = (text: string) => string
const asIs: Intern = (text) => text

export const compileLink = (record: LinkRecord, intern: Intern = asIs): CompiledLink => {
  const utm = encodedParams(utmPairs(record.utm))
  // Most links have no utm set and ASCII destinations: those are kept as they are, not copied.
  const prepare = utm.length === 0 ? toLocationUrl : (url: string) => safeOverlay(toLocationUrl(url), utm)

  let ab: CompiledAbTest | null = null
  if (record.abTest !== null && record.abTest.variants.length > 1) {
    let total = 0
    const cumulative: Array<number> = []
    for (const variant of record.abTest.variants) cumulative.push((total += variant.weight))
    ab = { urls: record.abTest.variants.map((v) => prepare(v.url)), cumulative, total, endsAtMs: time(record.abTest.endsAt), seed: xxh32(record.id) }
  }
  let device: { ios?: string; android?: string; desktop?: string } | null = null
  for (const rule of record.deviceRules) (device ??= {})[rule.device] = prepare(rule.url)
  let geo: Map<string, string> | null = null
  for (const rule of record.geoRules) (geo ??= new Map()).set(rule.country.toUpperCase(), prepare(rule.url))

  const hasOpenGraph = record.title !== null || record.description !== null || record.ogImageUrl !== null
  let extras: CompiledExtras | null = null
  if (hasOpenGraph || record.passwordHash !== null || record.expiredUrl !== null || record.expiresAt !== null || record.passQuery || record.openInApp || record.openInBrowser) {
    extras = {
      expiresAtMs: record.expiresAt === null ? null : Date.parse(record.expiresAt),
      passQuery: record.passQuery,
      openInApp: record.openInApp,
      openInBrowser: record.openInBrowser,
      passwordHash: record.passwordHash,
      expiredUrl: record.expiredUrl === null ? null : toLocationUrl(record.expiredUrl),
      title: record.title,
      description: record.description,
      ogImageUrl: record.ogImageUrl,
      hasOpenGraph
    }
  }

  return {
    id: record.id,
    workspaceId: intern(record.workspaceId),
    status: record.redirectType,
    url: prepare(record.url),
    rules: geo === null && device === null && ab === null ? null : { geo, device, ab },
    extras
  }
}

const stringBytes = (text: string | null | undefined) => (text == null ? 0 : 16 + text.length)

/** Rough size of a compiled link in memory, for the cache's byte bound (computed once, when cached). */
export const compiledLinkBytes = (link: CompiledLink): number => {
  let bytes = 72 + stringBytes(link.id) + stringBytes(link.url)
  const { rules, extras } = link
  if (rules !== null) {
    bytes += 48
    for (const url of rules.geo?.values() ?? []) bytes += 40 + stringBytes(url)
    for (const url of Object.values(rules.device ?? {})) bytes += 16 + stringBytes(url)
    for (const url of rules.ab?.urls ?? []) bytes += 16 + stringBytes(url)
  }
  if (extras !== null) {
    bytes += 88 + stringBytes(extras.passwordHash) + stringBytes(extras.expiredUrl) + stringBytes(extras.title) +
      stringBytes(extras.description) + stringBytes(extras.ogImageUrl)
  }
  return bytes
}

// Control only stores absolute http(s) URLs; a record that is not one is served unchanged.
const safeOverlay = (url: string, params: ReadonlyArray<QueryParam>): string => {
  try {
    return overlayQuery(url, params)
  } catch {
    return url
  }
}

/** A domain as the engine serves it: its fallbacks encoded for a Location header, like link destinations. */
export interface CompiledDomain {
  readonly record: DomainRecord
  readonly serving: boolean
  readonly rootRedirectUrl: string | null
  readonly notFoundUrl: string | null
  readonly expiredUrl: string | null
}

const location = (url: string | null) => (url === null ? null : toLocationUrl(url))

export const compileDomain = (record: DomainRecord): CompiledDomain => ({
  record,
  serving: record.status === "verified",
  rootRedirectUrl: location(record.rootRedirectUrl),
  notFoundUrl: location(record.notFoundUrl),
  expiredUrl: location(record.expiredUrl)
})
