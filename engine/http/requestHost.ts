/**
 * The host a request names, as the cache keys domains: the Host header without its port, lower
 * case, without the trailing dot of a fully qualified name (`Go.Example.com.:443` is
 * `go.example.com`). An IPv6 literal keeps its brackets (`[::1]:8080` is `[::1]`). On the hot
 * path: nothing is copied for the usual `host` or `host:port`.
 */
export const requestHost = (header: string): string => {
  const colon = header.lastIndexOf(":")
  let host = colon > 0 && !header.endsWith("]") ? header.slice(0, colon) : header
  if (host.charCodeAt(host.length - 1) === 46 /* . */) host = host.slice(0, -1)
  return host.toLowerCase()
}

/** Letters, digits, `-` and `_` in dot-separated labels of at most 63, 253 in all. */
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_-]{1,63}(?:\.[a-z0-9_-]{1,63})*$/

/**
 * What a host that is not in the cache can be, before anything is looked up for it: a name the
 * database may know; an IP literal, which is never a short-link domain (404, like any unknown
 * host); or nothing a domain could be, an empty Host header included (400).
 */
export const hostKind = (host: string): "name" | "address" | "invalid" => {
  if (HOST_NAME.test(host)) return "name"
  if (host.length > 2 && host.length < 48 && host.startsWith("[") && host.endsWith("]") && /^\[[0-9a-f:.]+\]$/.test(host)) return "address"
  return "invalid"
}
