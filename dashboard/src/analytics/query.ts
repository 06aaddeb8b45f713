import { Exit, Schema } from "effect"
import { DashboardQuery } from "../../../control/analytics/schema.ts"
import { type ApiFailure, failed } from "../api/failure.ts"
import { fieldIssuesOf } from "../api/schemaIssues.ts"
import { navigate } from "../ui/router.tsx"

/** A view's parameters as its URL holds them, so a filtered view can be bookmarked and shared. */
export type Params = Readonly<Record<string, string>>

export const paramsOf = (url: URL): Params => {
  const params: Record<string, string> = {}
  for (const [k, v] of url.searchParams) if (v !== "") params[k] = v
  if (params.start === undefined && params.interval === undefined) params.interval = "30d"
  return params
}

export const setParams = (params: Params) => navigate(`${window.location.pathname}?${new URLSearchParams(params)}`)

/** Every breakdown a view shows: asked in the one request of the view. */
const INCLUDE = "timeseries,previous,countries,regions,cities,devices,browsers,os,referers,top_links,utm_sources,utm_mediums,utm_campaigns"

/**
 * The URL's text checked by the declaration's own query schema, as the server would: a view with
 * a parameter that cannot be asked says which, before asking.
 */
export const dashboardQueryOf = (params: Params): { ok: true; query: DashboardQuery } | { ok: false; failure: ApiFailure } => {
  const decoded = Schema.decodeUnknownExit(DashboardQuery, { errors: "all" })({ ...params, include: INCLUDE, limit: 10 })
  if (Exit.isSuccess(decoded)) return { ok: true, query: decoded.value }
  const error = decoded.cause.reasons.find((r) => r._tag === "Fail")?.error
  const issues = error && Schema.isSchemaError(error) ? fieldIssuesOf(error.issue) : []
  return { ok: false, failure: failed(422, "unprocessable_entity", `This view's address asks for something that cannot be counted: ${issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`, []) }
}
