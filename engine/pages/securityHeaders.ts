import { createHash } from "node:crypto"
import { HANDOFF_SCRIPT, PAGE_STYLE } from "./html.ts"

/**
 * The headers each kind of engine answer carries besides its content.
 *
 * Pages: nothing may frame them (the password form least of all: `frame-ancestors 'none'` and,
 * for browsers that predate it, `X-Frame-Options: DENY`), they load nothing, and the only inline
 * code they hold is the constant stylesheet and the hand-off script, allowed by their SHA-256
 * (computed here once, from the very strings the pages embed). No `<base>` can move relative URLs.
 *
 * form-action: the password form posts to the page's own origin, but browsers (Chromium) apply
 * form-action to every redirect that follows a form submission, and an unlocked link redirects
 * to its destination on another origin: with `'self'` alone the unlock was aborted
 * (net::ERR_ABORTED) and the visitor stayed on the form. Destinations are any http(s) URL, so
 * those schemes are allowed; the pages embed no markup from outside, so no other form can appear.
 *
 * Referrer-Policy: a redirect, and the hand-off page that is a redirect done in a page, send the
 * visitor on to the destination, which learns the origin of the page the short link was followed
 * from but never its path or query (which can carry anything), and nothing when HTTPS would go
 * to HTTP (`strict-origin-when-cross-origin`; on a redirect response it also overrides a looser
 * policy of the page the visitor came from). The other pages lead nowhere else (`no-referrer`).
 */
export type Headers = ReadonlyArray<readonly [name: string, value: string]>

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`

const POLICY = `default-src 'none'; style-src ${sha256(PAGE_STYLE)}; form-action 'self' https: http:; base-uri 'none'; frame-ancestors 'none'`

export const PAGE_CSP = POLICY
export const HANDOFF_CSP = `${POLICY}; script-src ${sha256(HANDOFF_SCRIPT)}`

export const REDIRECT_REFERRER_POLICY = "strict-origin-when-cross-origin"

const HTML = "text/html; charset=utf-8"
const NO_STORE = "private, no-store"

const pageHeaders = (csp: string, referrerPolicy: string): Headers => [
  ["content-type", HTML],
  ["cache-control", NO_STORE],
  ["x-content-type-options", "nosniff"],
  ["x-frame-options", "DENY"],
  ["content-security-policy", csp],
  ["referrer-policy", referrerPolicy]
]

/** Every page but the hand-off: 404, 410, landing, password form, Open Graph preview, errors. */
export const PAGE_HEADERS: Headers = pageHeaders(PAGE_CSP, "no-referrer")

/** The iOS app hand-off page: its script allowed, and the destination told where the visitor came from, as a redirect would. */
export const HANDOFF_PAGE_HEADERS: Headers = pageHeaders(HANDOFF_CSP, REDIRECT_REFERRER_POLICY)
