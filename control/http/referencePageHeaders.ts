import { createHash } from "node:crypto"
import { Effect } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"

/**
 * The headers of the API reference page (/v1/docs), which shares its origin with the dashboard
 * and the session cookie: a script injected there could act as whoever is signed in, and a page
 * framed by another site could be clicked through. So:
 *
 * - script: only the page's own two inline scripts (Scalar's bundle and the call that starts it),
 *   allowed by their SHA-256. The page is one constant, made once from the API's declaration and
 *   the bundle the effect package ships; the hashes are taken from it once.
 * - style: Scalar styles its components by inserting `<style>` elements and `style` attributes
 *   from script, which only `'unsafe-inline'` allows; styles cannot run code.
 * - connect: this origin (the OpenAPI document is in the page; "Test request" calls this API).
 * - images: this origin and data: URLs (Scalar's icons); fonts: none are loaded
 *   (`withDefaultFonts: false`), nothing from another host.
 * - nothing may frame it (`frame-ancestors 'none'`, and X-Frame-Options for older browsers), no
 *   `<base>` may move its URLs, no form may post anywhere, and it sends no referrer elsewhere.
 */
const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`

/** The inline scripts of an HTML page, exactly as a browser delimits them. */
export const inlineScripts = (html: string): Array<string> =>
  [...html.matchAll(/<script>([\s\S]*?)<\/script/gi)].map((match) => match[1])

export const referencePagePolicy = (html: string): string =>
  [
    "default-src 'none'",
    `script-src ${inlineScripts(html).map(sha256).join(" ")}`,
    "style-src 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'"
  ].join("; ")

const pageText = (response: HttpServerResponse.HttpServerResponse): string | undefined =>
  response.body._tag === "Uint8Array" ? response.body.text ?? new TextDecoder().decode(response.body.body) : undefined

/** The policy of the one page, computed when it is first served. */
let policy: { readonly html: string; readonly value: string } | undefined

const withHeaders = (response: HttpServerResponse.HttpServerResponse) => {
  const html = pageText(response)
  if (html === undefined) return response
  if (policy?.html !== html) policy = { html, value: referencePagePolicy(html) }
  return HttpServerResponse.setHeaders(response, {
    "content-security-policy": policy.value,
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin"
  })
}

/** For the reference page's route: its answer (the page) with the headers above. */
export const ReferencePageHeaders = HttpRouter.middleware((app) => Effect.map(app, withHeaders)).layer
