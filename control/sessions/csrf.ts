/**
 * The CSRF defence of cookie sessions: a browser sends `Origin` with every unsafe request, and a
 * page elsewhere cannot make it name us. SameSite=Lax already keeps the cookie off most
 * cross-site requests; this also covers sibling subdomains (same site, other origin) and older
 * browsers. API keys are never sent by a browser on its own, so key requests are not checked.
 */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"])

export const isUnsafeMethod = (method: string): boolean => !SAFE_METHODS.has(method.toUpperCase())

/** Whether `origin` (an Origin header) names this site: the request's Host, or the configured public origin. */
const isThisSite = (origin: string, host: string | undefined, publicOrigin: string | undefined): boolean => {
  if (origin === "null") return false
  let parsed: URL
  try {
    parsed = new URL(origin)
  } catch {
    return false
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return false
  if (publicOrigin !== undefined && parsed.origin === publicOrigin) return true
  return host !== undefined && parsed.host === host.trim().toLowerCase()
}

/**
 * Whether a cookie-authenticated request may go ahead: safe methods always; unsafe ones only with
 * an Origin whose host is the request's Host, or which is the configured public origin.
 */
export const originAllowed = (
  method: string,
  origin: string | undefined,
  host: string | undefined,
  publicOrigin: string | undefined
): boolean => !isUnsafeMethod(method) || (origin !== undefined && isThisSite(origin, host, publicOrigin))

/**
 * Whether a sign-in may go ahead. A page elsewhere must not sign the browser in to an account of
 * its choosing (login CSRF: what the person then saves lands in that account), and no cookie
 * guards this request yet, so the rule does not depend on one: an Origin header, when there is
 * one, must name this site (`null`, sent from sandboxed and privacy-sensitive contexts, does not).
 * Browsers send Origin with every cross-site POST, so a request without it is a script's, curl's
 * or an old browser's own same-site one, and goes ahead, unless its Sec-Fetch-Site says it comes
 * from another origin (`cross-site`, or `same-site`: a sibling subdomain).
 */
export const signInOriginAllowed = (
  origin: string | undefined,
  fetchSite: string | undefined,
  host: string | undefined,
  publicOrigin: string | undefined
): boolean => {
  if (origin !== undefined) return isThisSite(origin, host, publicOrigin)
  const site = fetchSite?.trim().toLowerCase()
  return site === undefined || site === "same-origin" || site === "none"
}
