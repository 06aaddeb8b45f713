/** utm keys of the link input and the query parameters they set. */
export const UTM_PARAMS: Readonly<Record<string, string>> = {
  source: "utm_source",
  medium: "utm_medium",
  campaign: "utm_campaign",
  term: "utm_term",
  content: "utm_content",
  ref: "ref"
}

export type QueryPairs = ReadonlyArray<readonly [string, string]>

/**
 * A query parameter as it goes into a URL: `key` is its decoded name (what a parameter of the same
 * name overrides by), `text` the `name=value` segment exactly as written in the URL.
 */
export interface QueryParam {
  readonly key: string
  readonly text: string
}

/** The link's utm set as query pairs, in a stable order. */
export const utmPairs = (utm: Readonly<Record<string, string>> | null): QueryPairs => {
  if (utm === null) return []
  const pairs: Array<[string, string]> = []
  for (const key of Object.keys(UTM_PARAMS)) {
    const value = utm[key]
    if (value !== undefined && value !== "") pairs.push([UTM_PARAMS[key], value])
  }
  return pairs
}

/** Decoded pairs (the link's utm set) as parameters: names and values percent-encoded. */
export const encodedParams = (pairs: QueryPairs): ReadonlyArray<QueryParam> =>
  pairs.map(([key, value]) => ({ key, text: `${encodeURIComponent(key)}=${encodeURIComponent(value)}` }))

const decodeKey = (segment: string): string => {
  const eq = segment.indexOf("=")
  const raw = (eq >= 0 ? segment.slice(0, eq) : segment).replace(/\+/g, " ")
  try {
    return decodeURIComponent(raw)
  } catch {
    return raw
  }
}

/**
 * What the WHATWG URL parser percent-encodes in a query (its query percent-encode set: C0
 * controls, space, `"`, `#`, `<`, `>`, DEL and everything beyond ASCII). Left raw in a Location
 * header these would end the query early (`#`), or are not allowed in a header as text at all;
 * everything else, `%ff`, `@`, `?`, `/` and `+` included, is passed as it came.
 */
const NOT_IN_QUERY = /[\u0000-\u0020"#<>\u007f-\u{10ffff}]/u
const NOT_IN_QUERY_ALL = /[\u0000-\u0020"#<>\u007f-\u{10ffff}]/gu

const percentEncode = (char: string): string => {
  // Buffer writes a lone surrogate as U+FFFD's bytes, where encodeURIComponent would throw.
  let out = ""
  for (const byte of Buffer.from(char, "utf8")) out += `%${byte < 16 ? "0" : ""}${byte.toString(16).toUpperCase()}`
  return out
}

/** Query text as it came, made safe to write into a URL and a header (see NOT_IN_QUERY). */
export const queryAsSent = (query: string): string =>
  NOT_IN_QUERY.test(query) ? query.replace(NOT_IN_QUERY_ALL, percentEncode) : query

/**
 * The short link's own query string (without `?`, as the visitor sent it) as parameters: each
 * `name=value` segment passed byte for byte (`%ff` stays `%ff`, `@evil.com` stays `@evil.com`),
 * only what cannot be written raw percent-encoded; empty segments (`a=1&&b=2`) carry nothing and
 * are dropped.
 */
export const visitorParams = (query: string): ReadonlyArray<QueryParam> => {
  if (query === "") return []
  const params: Array<QueryParam> = []
  for (const segment of query.split("&")) {
    if (segment === "") continue
    const text = queryAsSent(segment)
    params.push({ key: decodeKey(text), text })
  }
  return params
}

/**
 * Sets `params` over the URL's own query parameters. The destination's parameters stay exactly as
 * written (no re-encoding: `?/route/1` or `a%20b` survive); a parameter that `params` sets takes
 * the new value(s) in its first place, new ones are appended, a key given several times in
 * `params` keeps all its values. Keys compare decoded (`utm%5Fsource` is `utm_source`). The
 * fragment stays at the end.
 */
export const overlayQuery = (url: string, params: ReadonlyArray<QueryParam>): string => {
  if (params.length === 0) return url
  const hash = url.indexOf("#")
  const fragment = hash >= 0 ? url.slice(hash) : ""
  const beforeHash = hash >= 0 ? url.slice(0, hash) : url
  const mark = beforeHash.indexOf("?")
  const base = mark >= 0 ? beforeHash.slice(0, mark) : beforeHash
  const query = mark >= 0 ? beforeHash.slice(mark + 1) : ""
  const overrides = new Map<string, Array<string>>()
  for (const { key, text } of params) {
    const texts = overrides.get(key)
    if (texts === undefined) overrides.set(key, [text])
    else texts.push(text)
  }
  const out: Array<string> = []
  const emitted = new Set<string>()
  for (const segment of query === "" ? [] : query.split("&")) {
    const key = decodeKey(segment)
    const texts = overrides.get(key)
    if (texts === undefined) {
      if (segment !== "") out.push(segment)
    } else if (!emitted.has(key)) {
      emitted.add(key)
      out.push(...texts)
    }
  }
  for (const [key, texts] of overrides) {
    if (!emitted.has(key)) out.push(...texts)
  }
  return `${base}${out.length > 0 ? `?${out.join("&")}` : ""}${fragment}`
}
