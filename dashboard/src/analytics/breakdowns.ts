import type { AnalyticsRowType, BreakdownGroup } from "../../../control/analytics/schema.ts"

/** A filter of the analytics a person can set, by its query parameter. */
export const FILTERS = [
  ["linkId", "Link id"], ["domain", "Domain"], ["slug", "Slug"], ["folderId", "Folder id"], ["tagIds", "Tag ids"],
  ["country", "Country"], ["device", "Device"], ["browser", "Browser"], ["os", "OS"], ["referer", "Referer"],
  ["utmSource", "utm_source"], ["utmMedium", "utm_medium"], ["utmCampaign", "utm_campaign"]
] as const
export type FilterKey = (typeof FILTERS)[number][0]

export interface Breakdown {
  readonly groupBy: BreakdownGroup
  readonly title: string
  /** The row's field that names it, and the filter clicking the row sets (none for the last UTM fields). */
  readonly key: string
  readonly filter?: FilterKey
}

const B = (groupBy: BreakdownGroup, title: string, key: string, filter?: FilterKey): Breakdown => ({ groupBy, title, key, filter })

/** The breakdowns a view shows, as tabs of four panels. */
export const PANELS: ReadonlyArray<{ readonly title: string; readonly tabs: ReadonlyArray<Breakdown> }> = [
  { title: "Locations", tabs: [B("countries", "Countries", "country", "country"), B("regions", "Regions", "region"), B("cities", "Cities", "city")] },
  { title: "Devices", tabs: [B("devices", "Devices", "device", "device"), B("browsers", "Browsers", "browser", "browser"), B("os", "Operating systems", "os", "os")] },
  {
    title: "Sources",
    tabs: [
      B("referers", "Referers", "referer", "referer"), B("utm_sources", "UTM sources", "utmSource", "utmSource"),
      B("utm_mediums", "UTM mediums", "utmMedium", "utmMedium"), B("utm_campaigns", "UTM campaigns", "utmCampaign", "utmCampaign")
    ]
  },
  { title: "Top links", tabs: [B("top_links", "Top links", "slug", "linkId")] }
]

export type Row = AnalyticsRowType

const field = (row: Row, key: string): string | number | null | undefined => (row as Record<string, string | number | null>)[key]

/** The value a row sets its filter to: top links filter by id, the others by what they show. */
export const filterValue = (breakdown: Breakdown, row: Row): string | undefined => {
  const value = breakdown.groupBy === "top_links" ? field(row, "linkId") : field(row, breakdown.key)
  return value === null || value === undefined ? undefined : String(value)
}

const regionNames = typeof Intl.DisplayNames === "function" ? new Intl.DisplayNames(undefined, { type: "region" }) : undefined

/** "Germany (DE)"; an unknown or missing code as it is. */
export const countryName = (code: string | null | undefined): string => {
  if (!code) return "Unknown"
  try {
    const name = regionNames?.of(code.toUpperCase())
    return name && name !== code ? `${name} (${code})` : code
  } catch {
    return code
  }
}

export const rowLabel = (breakdown: Breakdown, row: Row): string => {
  const country = field(row, "country") as string | null | undefined
  if (breakdown.groupBy === "countries") return countryName(country)
  if (breakdown.groupBy === "regions") return [field(row, "region") ?? "Unknown", country].filter(Boolean).join(", ")
  if (breakdown.groupBy === "cities") return [field(row, "city") ?? "Unknown", field(row, "region"), country].filter(Boolean).join(", ")
  // A link by its slug on its domain, never the destination cut short.
  if (breakdown.groupBy === "top_links") return `${field(row, "domain")}/${field(row, "slug")}`
  const value = field(row, breakdown.key)
  return value === null || value === undefined || value === "" ? "(none)" : String(value)
}
