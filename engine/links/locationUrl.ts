/**
 * A destination as it may go out in a `Location` header: serialized by the WHATWG URL parser, as
 * the browser following the redirect would parse it anyway. Non-ASCII and characters not allowed
 * where they stand are percent-encoded (as UTF-8), an IDN host becomes punycode, so the header
 * carries only printable ASCII; the rest is kept (`%ff` and `?/route` in a query, the fragment).
 * Done once when a link is compiled, so the hot path pays nothing. A string the parser refuses
 * is returned unchanged (control stores only absolute http(s) URLs), and the server's last check
 * refuses to send it.
 */
export const toLocationUrl = (url: string): string => {
  let href: string
  try {
    href = new URL(url).href
  } catch {
    return url
  }
  // The same text keeps the original string: a compiled link holds one copy, not two.
  return href === url ? url : href
}
