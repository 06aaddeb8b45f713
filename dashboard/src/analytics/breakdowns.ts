import type { GroupBy } from "../../../control/analytics/schema.ts"

/** A filter of GET /v1/analytics a person can set, by its query parameter. */
export const FILTERS = [
  ["linkId", "Link id"], ["domain", "Domain"], ["slug", "Slug"], ["folderId", "Folder id"], ["tagIds", "Tag ids"],
  ["country", "Country"], ["device", "Device"], ["browser", "Browser"], ["os", "OS"], ["referer", "Referer"],
  ["utmSource", "utm_source"], ["utmMedium", "utm_medium"], ["utmCampaign", "utm_campaign"]
] as const
export type FilterKey = (typeof FILTERS)[number][0]

export interface Breakdown {
  readonly groupBy: GroupBy
  readonly title: string
  /** The row's field that names it, and the filter clicking the row sets (none for the last UTM fields). */
  readonly key: string
  readonly filter?: FilterKey
}

export const BREAKDOWNS: ReadonlyArray<Breakdown> = [
  { groupBy: "countries", title: "Countries", key: "country", filter: "country" },
  { groupBy: "regions", title: "Regions", key: "region" },
  { groupBy: "cities", title: "Cities", key: "city" },
  { groupBy: "devices", title: "Devices", key: "device", filter: "device" },
  { groupBy: "browsers", title: "Browsers", key: "browser", filter: "browser" },
  { groupBy: "os", title: "Operating systems", key: "os", filter: "os" },
  { groupBy: "referers", title: "Referers", key: "referer", filter: "referer" },
  { groupBy: "top_links", title: "Top links", key: "shortLink", filter: "linkId" },
  { groupBy: "utm_sources", title: "UTM sources", key: "utmSource", filter: "utmSource" },
  { groupBy: "utm_mediums", title: "UTM mediums", key: "utmMedium", filter: "utmMedium" },
  { groupBy: "utm_campaigns", title: "UTM campaigns", key: "utmCampaign", filter: "utmCampaign" },
  { groupBy: "utm_terms", title: "UTM terms", key: "utmTerm" },
  { groupBy: "utm_contents", title: "UTM contents", key: "utmContent" }
]

export type Row = Readonly<Record<string, string | number | null>> & { readonly clicks: number; readonly people: number; readonly agents: number }

/** The value a row sets its filter to: top links filter by id, the others by what they show. */
export const filterValue = (breakdown: Breakdown, row: Row): string | undefined => {
  const value = breakdown.groupBy === "top_links" ? row.linkId : row[breakdown.key]
  return value === null || value === undefined ? undefined : String(value)
}

export const rowLabel = (breakdown: Breakdown, row: Row): string => {
  if (breakdown.groupBy === "regions") return [row.region ?? "Unknown", row.country].filter(Boolean).join(", ")
  if (breakdown.groupBy === "cities") return [row.city ?? "Unknown", row.region, row.country].filter(Boolean).join(", ")
  const value = row[breakdown.key]
  return value === null || value === "" ? "(none)" : String(value)
}
