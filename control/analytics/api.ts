import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { CountsAsAnalytics } from "../kernel/Admission.ts"
import { input, RequestChecks } from "../kernel/RequestChecks.ts"
import { DomainUnknown, FolderUnknown, LinkUnknown, SlugUnknown, TagUnknown } from "../kernel/unknownReferences.ts"
import { AnalyticsQuery, AnalyticsResponse, DashboardAnswer, DashboardQuery } from "./schema.ts"

/** /v1/analytics: click counts, counted against the analytics allowance too. */
export const AnalyticsApi = HttpApiGroup.make("analytics")
  .annotate(OpenApi.Description, "Clicks by people and AI agents (other bots are never counted)")
  .add(
    HttpApiEndpoint.get("query", "/analytics", {
      query: input(AnalyticsQuery),
      success: AnalyticsResponse,
      error: [LinkUnknown.response, DomainUnknown.response, SlugUnknown.response, FolderUnknown.response, TagUnknown.response]
    }).middleware(RequestChecks)
      .annotate(OpenApi.Summary, "Click counts for a link, a domain or the workspace, over an interval, counted as groupBy says")
  )
  .add(
    HttpApiEndpoint.get("dashboard", "/analytics/dashboard", {
      query: input(DashboardQuery),
      success: DashboardAnswer,
      error: [LinkUnknown.response, DomainUnknown.response, SlugUnknown.response, FolderUnknown.response, TagUnknown.response]
    }).middleware(RequestChecks)
      .annotate(OpenApi.Summary, "One view of the dashboard in one request: totals, timeseries, previous period and breakdowns")
      .annotate(
        OpenApi.Description,
        "Not part of the spec: what the dashboard asks for one analytics view, counted once against the analytics " +
          "allowance. The window and filters are those of GET /v1/analytics. The answer always has the totals; " +
          "`include` (comma-separated) adds `timeseries`, `previous` (the period just before, as long; null for all time " +
          "or beyond the plan's history) and breakdowns by any groupBy of GET /v1/analytics, `limit` rows each (1 to 100, " +
          "default 10). `linkIds` (up to 100) narrows to those links; with `top_links` every one of them is answered."
      )
  )
  .annotate(CountsAsAnalytics, true)
