/**
 * The client address a trusted reverse proxy reports in X-Forwarded-For: the last entry, the one
 * the proxy itself appended. Entries before it arrived from the client and can say anything, so
 * taking the first would let any visitor choose its address (and its rate limit, and its
 * visitor hash). Undefined when the header is absent or its last entry is empty.
 */
export const forwardedClient = (header: string | undefined): string | undefined => {
  if (header === undefined || header === "") return undefined
  const last = header.slice(header.lastIndexOf(",") + 1).trim()
  return last === "" ? undefined : last
}
