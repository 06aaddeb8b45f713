import { restoreFormula } from "../spreadsheetCells.ts"

/**
 * How the columns of an uploaded CSV map to link fields. Headers are compared without case,
 * spaces, `_` or `-`, so `Long URL`, `long_url` and `longUrl` are one name. Besides our own
 * export's columns (every Link field under its own name), the names other shorteners' exports
 * use: Bitly (`long_url`, `link`/`bitlink`, `title`, `tags`), Dub (`url`, `key`, `domain`,
 * `link`/`shortLink`, `title`, `tags`, `utm_*`), Shlink (`longUrl`, `shortCode`, `shortUrl`,
 * `domain`, `title`, `tags` separated by `|`, `validUntil`, `forwardQuery`). Anything else
 * (ids, click counts, dates of creation, folder ids of another workspace) is ignored and listed.
 */

export type Target =
  | "url" | "slug" | "shortLink" | "domain" | "title" | "description" | "ogImageUrl" | "tags" | "redirectType" | "passQuery"
  | "openInApp" | "openInBrowser" | "utm" | "geoRules" | "deviceRules" | "expiresAt" | "expiredUrl" | "abTest"
  | "utm.source" | "utm.medium" | "utm.campaign" | "utm.term" | "utm.content" | "utm.ref"

const ALIASES: Record<Target, ReadonlyArray<string>> = {
  url: ["url", "longurl", "destinationurl", "destination", "originalurl", "targeturl", "target"],
  slug: ["slug", "key", "shortcode", "backhalf", "keyword"],
  shortLink: ["shortlink", "shorturl", "link", "bitlink", "shortenedurl"],
  domain: ["domain", "host"],
  title: ["title"],
  description: ["description"],
  ogImageUrl: ["ogimageurl", "image"],
  tags: ["tags", "tag"],
  redirectType: ["redirecttype"],
  passQuery: ["passquery", "forwardquery"],
  openInApp: ["openinapp"],
  openInBrowser: ["openinbrowser"],
  utm: ["utm"],
  geoRules: ["georules"],
  deviceRules: ["devicerules"],
  expiresAt: ["expiresat", "validuntil", "expiration"],
  expiredUrl: ["expiredurl"],
  abTest: ["abtest"],
  "utm.source": ["utmsource"],
  "utm.medium": ["utmmedium"],
  "utm.campaign": ["utmcampaign"],
  "utm.term": ["utmterm"],
  "utm.content": ["utmcontent"],
  "utm.ref": ["ref", "utmref"]
}

const BY_NAME = new Map<string, Target>(
  Object.entries(ALIASES).flatMap(([target, names]) => names.map((name) => [name, target as Target]))
)

export const normalizeHeader = (header: string): string => header.toLowerCase().replace(/[^a-z0-9]/g, "")

export interface ColumnMap {
  /** For each column of the file, the field it fills, or undefined for an ignored column. */
  readonly targets: ReadonlyArray<Target | undefined>
  readonly ignored: ReadonlyArray<string>
}

/** The first column naming a field wins; later ones with the same meaning are ignored. */
export const mapColumns = (headers: ReadonlyArray<string>): ColumnMap => {
  const taken = new Set<Target>()
  const targets = headers.map((header) => {
    const target = BY_NAME.get(normalizeHeader(header))
    if (target === undefined || taken.has(target)) return undefined
    taken.add(target)
    return target
  })
  return { targets, ignored: headers.filter((_, i) => targets[i] === undefined) }
}

/** What a row asks for: link fields as POST /v1/links takes them, and what is resolved when it runs. */
export interface ImportRow {
  readonly input: Record<string, unknown>
  /** Tag names, matched to the workspace's tags when the row runs. */
  readonly tagNames?: ReadonlyArray<string>
  /** The row's domain: used when it is one of the workspace's, else the link goes on the primary domain. */
  readonly domain?: string
}

const BOOLEANS: Record<string, boolean> = { true: true, false: false, yes: true, no: false, "1": true, "0": false }

const json = (cell: string): unknown => {
  try {
    return JSON.parse(cell)
  } catch {
    // Left as text: validation answers the type it expected there.
    return cell
  }
}

/** A date-time with any offset, as the UTC form the API takes; anything else is left for validation to refuse. */
const utcDateTime = (cell: string): string => {
  if (!/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(cell)) return cell
  const ms = Date.parse(cell.replace(" ", "T"))
  return Number.isNaN(ms) ? cell : new Date(ms).toISOString().replace(".000Z", "Z")
}

const tagNames = (cell: string): Array<string> => {
  const parsed = cell.startsWith("[") ? json(cell) : undefined
  const names = Array.isArray(parsed)
    ? parsed.map((tag) => (typeof tag === "string" ? tag : typeof tag?.name === "string" ? tag.name : ""))
    : cell.split(cell.includes("|") ? "|" : ",")
  return [...new Set(names.map((name) => name.trim()).filter((name) => name !== ""))]
}

const shortLinkParts = (cell: string): { domain?: string; slug?: string } => {
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(cell) ? cell : `https://${cell}`)
    const slug = decodeURIComponent(url.pathname.replace(/^\//, ""))
    return { domain: url.hostname, ...(slug === "" ? {} : { slug }) }
  } catch {
    return {}
  }
}

/** One record of the file as an import row. Empty cells leave their field out. */
export const toImportRow = (cells: ReadonlyArray<string>, columns: ColumnMap): ImportRow => {
  const input: Record<string, unknown> = {}
  const utm: Record<string, string> = {}
  let tags: Array<string> | undefined
  let domain: string | undefined
  let fromShortLink: { domain?: string; slug?: string } = {}
  columns.targets.forEach((target, i) => {
    // Our export marks formula-like cells with a leading `'` (spreadsheetCells.ts): read the value it holds.
    const cell = restoreFormula((cells[i] ?? "").trim())
    if (target === undefined || cell === "") return
    switch (target) {
      case "tags":
        tags = tagNames(cell)
        return
      case "domain":
        domain = cell.toLowerCase()
        return
      case "shortLink":
        fromShortLink = shortLinkParts(cell)
        return
      case "passQuery":
      case "openInApp":
      case "openInBrowser":
        input[target] = BOOLEANS[cell.toLowerCase()] ?? cell
        return
      case "redirectType":
        input[target] = /^\d+$/.test(cell) ? Number(cell) : cell
        return
      case "utm":
      case "geoRules":
      case "deviceRules":
      case "abTest":
        input[target] = json(cell)
        return
      case "expiresAt":
        input[target] = utcDateTime(cell)
        return
      default:
        if (target.startsWith("utm.")) utm[target.slice(4)] = cell
        else input[target] = cell
    }
  })
  if (Object.keys(utm).length > 0) {
    const set = input.utm !== null && typeof input.utm === "object" && !Array.isArray(input.utm) ? input.utm as Record<string, unknown> : {}
    input.utm = { ...set, ...utm }
  }
  if (input.slug === undefined && fromShortLink.slug !== undefined) input.slug = fromShortLink.slug
  domain ??= fromShortLink.domain
  return { input, ...(tags === undefined ? {} : { tagNames: tags }), ...(domain === undefined ? {} : { domain }) }
}
