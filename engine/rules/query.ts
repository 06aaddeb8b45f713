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

/**
 * Sets `pairs` over the URL's own query parameters: a parameter already there takes the new
 * value in place, new ones are appended. The fragment stays at the end.
 */
export const overlayQuery = (url: string, pairs: QueryPairs): string => {
  if (pairs.length === 0) return url
  const parsed = new URL(url)
  for (const [key, value] of pairs) parsed.searchParams.set(key, value)
  return parsed.toString()
}

/** The short link's own query string as pairs (`a=1&b=2`, without the `?`). */
export const parseQuery = (query: string): QueryPairs => {
  if (query === "") return []
  const pairs: Array<[string, string]> = []
  for (const [key, value] of new URLSearchParams(query)) if (key !== "") pairs.push([key, value])
  return pairs
}
