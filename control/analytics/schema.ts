import { Schema } from "effect"
import { UtcDateTime } from "../kernel/fields.ts"

export const GROUP_BYS = [
  "count", "timeseries", "countries", "regions", "cities", "devices", "browsers", "os", "referers",
  "top_links", "utm_sources", "utm_mediums", "utm_campaigns", "utm_terms", "utm_contents"
] as const
export type GroupBy = (typeof GROUP_BYS)[number]

export const INTERVALS = ["24h", "7d", "30d", "90d", "1y", "all"] as const
export type Interval = (typeof INTERVALS)[number]

export const ANALYTICS_DEVICES = ["desktop", "mobile", "tablet", "tv", "console", "other"] as const

const OneOrMany = Schema.Union([Schema.String, Schema.Array(Schema.String)])

const countries = Schema.makeFilter((value: string | ReadonlyArray<string>) => {
  const list = (typeof value === "string" ? [value] : value).flatMap((v) => v.split(",")).map((v) => v.trim()).filter((v) => v !== "")
  return list.every((c) => /^[A-Za-z]{2}$/.test(c)) || "Expected ISO 3166-1 alpha-2 country codes"
}, { expected: "ISO 3166-1 alpha-2 country codes" })

const devices = Schema.makeFilter((value: string | ReadonlyArray<string>) => {
  const list = (typeof value === "string" ? [value] : value).flatMap((v) => v.split(",")).map((v) => v.trim()).filter((v) => v !== "")
  return list.every((d) => (ANALYTICS_DEVICES as ReadonlyArray<string>).includes(d)) || `Expected ${ANALYTICS_DEVICES.join(", ")}`
}, { expected: ANALYTICS_DEVICES.join(", ") })

/** The window (a named interval, or start and end) and the filters of an analytics question. */
const WindowAndFilters = {
  interval: Schema.optionalKey(Schema.Literals(INTERVALS)),
  start: Schema.optionalKey(UtcDateTime.annotate({ description: "Start of a custom window (UTC, inclusive); not with interval" })),
  end: Schema.optionalKey(UtcDateTime.annotate({ description: "End of a custom window (UTC, exclusive; default now); needs start" })),
  linkId: Schema.optionalKey(Schema.String.check(Schema.isMinLength(1))),
  domain: Schema.optionalKey(Schema.String.check(Schema.isMinLength(1))),
  slug: Schema.optionalKey(Schema.String.check(Schema.isMinLength(1))),
  folderId: Schema.optionalKey(Schema.String.check(Schema.isMinLength(1))),
  tagIds: Schema.optionalKey(OneOrMany),
  country: Schema.optionalKey(OneOrMany.check(countries)),
  device: Schema.optionalKey(OneOrMany.check(devices)),
  browser: Schema.optionalKey(OneOrMany),
  os: Schema.optionalKey(OneOrMany),
  referer: Schema.optionalKey(OneOrMany),
  utmSource: Schema.optionalKey(OneOrMany),
  utmMedium: Schema.optionalKey(OneOrMany),
  utmCampaign: Schema.optionalKey(OneOrMany),
  audience: Schema.optionalKey(Schema.Literals(["people", "agents"]))
}

const oneWindow = Schema.makeFilter((q: { interval?: string; start?: string; end?: string }) => {
  // A window is either named (interval) or custom (start, end): never both, and never an end alone.
  if (q.interval !== undefined && (q.start !== undefined || q.end !== undefined)) {
    return { path: ["interval"], issue: "interval cannot be combined with start or end" }
  }
  if (q.end !== undefined && q.start === undefined) return { path: ["start"], issue: "start is required with end" }
  if (q.start !== undefined && q.end !== undefined && Date.parse(q.start) >= Date.parse(q.end)) {
    return { path: ["end"], issue: "end must be after start" }
  }
  return true
})

export const AnalyticsQuery = Schema.Struct({
  groupBy: Schema.optionalKey(Schema.Literals(GROUP_BYS)),
  ...WindowAndFilters,
  limit: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1000 })))
}).check(oneWindow).annotate({ identifier: "AnalyticsQuery" })
export type AnalyticsQuery = typeof AnalyticsQuery.Type

/** What a dashboard view may ask for besides the totals: the timeseries, the previous period, breakdowns. */
export const DASHBOARD_PARTS = ["timeseries", "previous", ...GROUP_BYS.filter((g) => g !== "count" && g !== "timeseries")] as const
export type DashboardPart = (typeof DASHBOARD_PARTS)[number]
export type BreakdownGroup = Exclude<DashboardPart, "timeseries" | "previous">

/** At most this many links in `linkIds`: a page of the links table. */
export const DASHBOARD_LINK_IDS = 100

const parts = Schema.makeFilter((value: string | ReadonlyArray<string>) => {
  const list = (typeof value === "string" ? [value] : value).flatMap((v) => v.split(",")).map((v) => v.trim()).filter((v) => v !== "")
  const unknown = list.find((p) => !(DASHBOARD_PARTS as ReadonlyArray<string>).includes(p))
  return unknown === undefined || `Expected a comma-separated list of ${DASHBOARD_PARTS.join(", ")}`
}, { expected: DASHBOARD_PARTS.join(", ") })

const linkIdList = Schema.makeFilter((value: string | ReadonlyArray<string>) => {
  const list = (typeof value === "string" ? [value] : value).flatMap((v) => v.split(",")).map((v) => v.trim()).filter((v) => v !== "")
  return list.length <= DASHBOARD_LINK_IDS || `At most ${DASHBOARD_LINK_IDS} link ids`
}, { expected: `at most ${DASHBOARD_LINK_IDS} link ids` })

/**
 * GET /v1/analytics/dashboard: one view of the dashboard in one request (one analytics allowance):
 * the totals, and what `include` names (the timeseries, the previous period of the same length,
 * breakdowns of `limit` rows each). `linkIds` narrows to those links (the links table's counts).
 */
export const DashboardQuery = Schema.Struct({
  ...WindowAndFilters,
  linkIds: Schema.optionalKey(OneOrMany.check(linkIdList)),
  include: Schema.optionalKey(OneOrMany.check(parts)),
  limit: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100 })))
}).check(oneWindow).annotate({ identifier: "DashboardQuery" })
export type DashboardQuery = typeof DashboardQuery.Type

const Counts = { clicks: Schema.Number, people: Schema.Number, agents: Schema.Number }
const Nullable = Schema.NullOr(Schema.String)

/** Row shapes of docs/decisions.md#analytics: one key field (or several for regions and cities), then the counts. */
export const AnalyticsRow = Schema.Union([
  Schema.Struct(Counts),
  Schema.Struct({ start: Schema.String, ...Counts }),
  Schema.Struct({ country: Nullable, ...Counts }),
  Schema.Struct({ country: Nullable, region: Nullable, ...Counts }),
  Schema.Struct({ country: Nullable, region: Nullable, city: Nullable, ...Counts }),
  Schema.Struct({ device: Schema.String, ...Counts }),
  Schema.Struct({ browser: Schema.String, ...Counts }),
  Schema.Struct({ os: Schema.String, ...Counts }),
  Schema.Struct({ referer: Schema.String, ...Counts }),
  Schema.Struct({ linkId: Schema.String, domain: Schema.String, slug: Schema.String, shortLink: Schema.String, url: Schema.String, ...Counts }),
  Schema.Struct({ utmSource: Schema.String, ...Counts }),
  Schema.Struct({ utmMedium: Schema.String, ...Counts }),
  Schema.Struct({ utmCampaign: Schema.String, ...Counts }),
  Schema.Struct({ utmTerm: Schema.String, ...Counts }),
  Schema.Struct({ utmContent: Schema.String, ...Counts })
])

export const AnalyticsResponse = Schema.Struct({
  start: Schema.String,
  end: Schema.String,
  data: Schema.Union([Schema.Struct(Counts), Schema.Array(AnalyticsRow)])
}).annotate({ identifier: "Analytics" })

const TimeseriesPoint = Schema.Struct({ start: Schema.String, ...Counts })
export type TimeseriesPoint = typeof TimeseriesPoint.Type

const Period = Schema.Struct({
  start: Schema.String,
  end: Schema.String,
  totals: Schema.Struct(Counts),
  timeseries: Schema.NullOr(Schema.Array(TimeseriesPoint))
})

/** The answer of GET /v1/analytics/dashboard: breakdowns keyed by their groupBy, rows as GET /v1/analytics has them. */
export const DashboardAnswer = Schema.Struct({
  ...Period.fields,
  previous: Schema.NullOr(Period),
  breakdowns: Schema.Record(Schema.String, Schema.Array(AnalyticsRow))
}).annotate({ identifier: "AnalyticsDashboard" })
export type DashboardAnswer = typeof DashboardAnswer.Type
export type AnalyticsRowType = typeof AnalyticsRow.Type
