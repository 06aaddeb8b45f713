import { xxh32 } from "@node-rs/xxhash"
import type { CompiledAbTest, CompiledLink } from "../links/compile.ts"
import type { Platform } from "../visitors/device.ts"
import { appDeepLink, browserHandOff } from "./apps.ts"
import { overlayQuery, visitorParams } from "./query.ts"

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
export const pickVariant = (ab: CompiledAbTest, visitorKey: string): number => {
  const bucket = xxh32(visitorKey, ab.seed) % ab.total
  let i = 0
  while (bucket >= ab.cumulative[i]) i++
  return i
}

/**
 * The evaluation order (docs/architecture.md#the-evaluation-order), steps 3 to 8, for a link that was found on a serving domain:
 * expiry, password, social preview, destination (geo, device, A/B, url), query merge, app
 * hand-offs. Pure: the same link and visit give the same decision.
 */
export const evaluateLink = (link: CompiledLink, visit: Visit, domainExpiredUrl: string | null): Decision => {
  const { rules, extras } = link
  if (extras !== null) {
    if (extras.expiresAtMs !== null && visit.now >= extras.expiresAtMs) {
      const fallback = extras.expiredUrl ?? domainExpiredUrl
      return fallback === null ? { kind: "expired-page" } : { kind: "expired-redirect", location: fallback }
    }
    if (extras.passwordHash !== null && !visit.unlocked()) return { kind: "password-page" }
    if (extras.hasOpenGraph && visit.previewCrawler()) return { kind: "preview-page" }
  }

  let destination: string | undefined
  let variant: number | null = null
  if (rules !== null) {
    if (rules.geo !== null) {
      const country = visit.country()
      if (country !== null) destination = rules.geo.get(country)
    }
    if (destination === undefined && rules.device !== null) {
      const platform = visit.platform()
      if (platform !== "other") destination = rules.device[platform]
    }
    if (destination === undefined && rules.ab !== null && visit.now < rules.ab.endsAtMs) {
      variant = pickVariant(rules.ab, visit.visitorKey())
      destination = rules.ab.urls[variant]
    }
  }
  // Every compiled destination already carries the link's utm set.
  let location = destination ?? link.url
  if (extras?.passQuery && visit.query !== "") location = safeOverlay(location, visit.query)

  if (extras?.openInApp) {
    const platform = visit.platform()
    if (platform === "ios" || platform === "android") {
      const handOff = appDeepLink(location, platform)
      if (handOff?.kind === "redirect") return { kind: "redirect", status: link.status, location: handOff.location, destination: location, variant }
      if (handOff?.kind === "page") return { kind: "app", appUrl: handOff.appUrl, location, destination: location, variant }
    }
  }
  if (extras?.openInBrowser && visit.inAndroidInAppBrowser()) {
    const intent = browserHandOff(location)
    if (intent !== undefined) return { kind: "redirect", status: link.status, location: intent, destination: location, variant }
  }
  return { kind: "redirect", status: link.status, location, destination: location, variant }
}

const safeOverlay = (url: string, query: string): string => {
  try {
    return overlayQuery(url, visitorParams(query))
  } catch {
    return url
  }
}
