/**
 * The CSRF defence of cookie sessions: a browser sends `Origin` with every unsafe request, and a
 * page elsewhere cannot make it name us. SameSite=Lax already keeps the cookie off most
 * cross-site requests; this also covers sibling subdomains (same site, other origin) and older
 * browsers. API keys are never sent by a browser on its own, so key requests are not checked.
 */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"])

export const isUnsafeMethod = (method: string): boolean => !SAFE_METHODS.has(method.toUpperCase())

/**
 * Whether a cookie-authenticated request may go ahead: safe methods always; unsafe ones only with
 * an Origin whose host is the request's Host, or which is the configured public origin.
 */
export const originAllowed = (
  method: string,
  origin: string | undefined,
  host: string | undefined,
  publicOrigin: string | undefined
): boolean => {
  if (!isUnsafeMethod(method)) return true
  if (origin === undefined || origin === "null") return false
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
