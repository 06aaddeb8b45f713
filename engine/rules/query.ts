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

const encodePair = (key: string, value: string) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`

const decodeKey = (segment: string): string => {
  const raw = segment.split("=", 1)[0].replace(/\+/g, " ")
  try {
    return decodeURIComponent(raw)
  } catch {
    return raw
  }
}

/**
 * Sets `pairs` over the URL's own query parameters. The destination's parameters stay exactly as
 * written (no re-encoding: `?/route/1` or `a%20b` survive); a parameter that `pairs` sets takes
 * the new value(s) in its first place, new ones are appended, a key given several times in
 * `pairs` keeps all its values. The fragment stays at the end.
 */
export const overlayQuery = (url: string, pairs: QueryPairs): string => {
  if (pairs.length === 0) return url
  const hash = url.indexOf("#")
  const fragment = hash >= 0 ? url.slice(hash) : ""
  const beforeHash = hash >= 0 ? url.slice(0, hash) : url
  const mark = beforeHash.indexOf("?")
  const base = mark >= 0 ? beforeHash.slice(0, mark) : beforeHash
  const query = mark >= 0 ? beforeHash.slice(mark + 1) : ""
  const overrides = new Map<string, Array<string>>()
  for (const [key, value] of pairs) {
    const values = overrides.get(key)
    if (values === undefined) overrides.set(key, [value])
    else values.push(value)
  }
  const out: Array<string> = []
  const emitted = new Set<string>()
  for (const segment of query === "" ? [] : query.split("&")) {
    const key = decodeKey(segment)
    const values = overrides.get(key)
    if (values === undefined) {
      if (segment !== "") out.push(segment)
    } else if (!emitted.has(key)) {
      emitted.add(key)
      for (const value of values) out.push(encodePair(key, value))
    }
  }
  for (const [key, values] of overrides) {
    if (!emitted.has(key)) for (const value of values) out.push(encodePair(key, value))
  }
  return `${base}${out.length > 0 ? `?${out.join("&")}` : ""}${fragment}`
}

/** The short link's own query string as pairs (`a=1&b=2`, without the `?`). */
export const parseQuery = (query: string): QueryPairs => {
  if (query === "") return []
  const pairs: Array<[string, string]> = []
  for (const [key, value] of new URLSearchParams(query)) if (key !== "") pairs.push([key, value])
  return pairs
}
