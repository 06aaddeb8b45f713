import { isIP } from "node:net"
import { parse } from "tldts"

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

/**
 * A custom host as a customer types it, checked and normalised (lower case, no trailing dot).
 * Returns the host, or a sentence saying what is wrong with it.
 */
export const parseCustomHost = (input: string, shortDomain: string): { host: string } | { problem: string } => {
  const raw = input.trim().toLowerCase().replace(/\.$/, "")
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(raw)) return { problem: "Give the host name only, without a scheme such as https://" }
  if (/[/?#]/.test(raw)) return { problem: "Give the host name only, without a path" }
  if (raw.startsWith("[") || isIP(raw) !== 0) return { problem: "An IP address cannot be a short-link domain; use a host name" }
  if (/:\d*$/.test(raw)) return { problem: "Give the host name only, without a port" }
  const labels = raw.split(".")
  if (raw.length > 253 || labels.length < 2 || !labels.every((l) => LABEL.test(l))) {
    return { problem: "Expected a host name such as go.example.com (letters, digits and hyphens between dots)" }
  }
  if (/^\d+$/.test(labels[labels.length - 1])) return { problem: "The last label of a host name cannot be all digits" }
  if (raw === shortDomain || raw.endsWith(`.${shortDomain}`)) {
    return { problem: `Hosts under ${shortDomain} are workspace subdomains, not custom domains` }
  }
  const parsed = parse(raw)
  if (parsed.isIcann && parsed.domain === null) return { problem: `${raw} is a public suffix; use a domain you registered under it` }
  return { host: raw }
}

/**
 * An apex (registrable domain, e.g. example.co.uk) cannot carry a CNAME next to its other records,
 * so it is pointed with an A record instead.
 */
export const isApex = (host: string): boolean => {
  const parsed = parse(host)
  return parsed.domain === host
}
