import { xxh32 } from "@node-rs/xxhash"
import type { CompiledLink } from "../links/compile.ts"
import type { Platform } from "../visitors/device.ts"
import { appDeepLink, browserHandOff } from "./apps.ts"
import { overlayQuery, parseQuery } from "./query.ts"

/**
 * What the evaluation needs to know about a visit. Facts that cost something to derive (country,
 * platform) are functions, asked only when a rule of the link needs them.
 */
export interface Visit {
  readonly now: number
  readonly country: () => string | null
  readonly platform: () => Platform
  /** Android in-app browser (for openInBrowser). */
  readonly inAndroidInAppBrowser: () => boolean
  /** A stable id of the visitor, for sticky A/B variants. */
  readonly visitorKey: () => string
  /** The short link's query string, without `?`. */
  readonly query: string
  readonly previewCrawler: () => boolean
  /** A valid unlock cookie for this link was presented. */
  readonly unlocked: () => boolean
}

export type Decision =
  /** The redirect to the destination; the click is recorded. */
  | { readonly kind: "redirect"; readonly status: number; readonly location: string; readonly destination: string; readonly variant: number | null }
  /** An iOS app hand-off page for `openInApp`; the click is recorded. */
  | { readonly kind: "app"; readonly appUrl: string; readonly location: string; readonly destination: string; readonly variant: number | null }
  /** Expired with a fallback URL (link's, else domain's): 302 there, not counted. */
  | { readonly kind: "expired-redirect"; readonly location: string }
  | { readonly kind: "expired-page" }
  | { readonly kind: "password-page" }
  | { readonly kind: "preview-page" }

/** Picks the A/B variant for a visitor: stable for the same visitor and link. */
export const pickVariant = (link: CompiledLink, visitorKey: string): number => {
  const ab = link.ab!
  const bucket = xxh32(visitorKey, link.abSeed) % ab.total
  let i = 0
  while (bucket >= ab.cumulative[i]) i++
  return i
}

/**
 * design.md's evaluation order, steps 3 to 8, for a link that was found on a serving domain:
 * expiry, password, social preview, destination (geo, device, A/B, url), query merge, app
 * hand-offs. Pure: the same link and visit give the same decision.
 */
export const evaluateLink = (link: CompiledLink, visit: Visit, domainExpiredUrl: string | null): Decision => {
  if (visit.now >= link.expiresAtMs) {
    const fallback = link.record.expiredUrl ?? domainExpiredUrl
    return fallback === null ? { kind: "expired-page" } : { kind: "expired-redirect", location: fallback }
  }
  if (link.record.passwordHash !== null && !visit.unlocked()) return { kind: "password-page" }
  if (link.hasOpenGraph && visit.previewCrawler()) return { kind: "preview-page" }

  let destination: string | undefined
  let variant: number | null = null
  if (link.geo !== null) {
    const country = visit.country()
    if (country !== null) destination = link.geo.get(country)
  }
  if (destination === undefined && link.device !== null) {
    const platform = visit.platform()
    if (platform !== "other") destination = link.device[platform]
  }
  if (destination === undefined && link.ab !== null && visit.now < link.ab.endsAtMs) {
    variant = pickVariant(link, visit.visitorKey())
    destination = link.ab.urls[variant]
  }
  destination ??= link.url

  let location = link.prepared?.get(destination) ?? destination
  if (link.passQuery && visit.query !== "") location = safeOverlay(location, visit.query)

  if (link.record.openInApp) {
    const platform = visit.platform()
    if (platform === "ios" || platform === "android") {
      const handOff = appDeepLink(location, platform)
      if (handOff?.kind === "redirect") return { kind: "redirect", status: link.status, location: handOff.location, destination: location, variant }
      if (handOff?.kind === "page") return { kind: "app", appUrl: handOff.appUrl, location, destination: location, variant }
    }
  }
  if (link.record.openInBrowser && visit.inAndroidInAppBrowser()) {
    const intent = browserHandOff(location)
    if (intent !== undefined) return { kind: "redirect", status: link.status, location: intent, destination: location, variant }
  }
  return { kind: "redirect", status: link.status, location, destination: location, variant }
}

const safeOverlay = (url: string, query: string): string => {
  try {
    return overlayQuery(url, parseQuery(query))
  } catch {
    return url
  }
}
