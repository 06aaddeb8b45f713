import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { CountsAsAnalytics } from "../api/Admission.ts"
import { input, RequestChecks } from "../api/RequestChecks.ts"
import { DomainUnknown, FolderUnknown, LinkUnknown, SlugUnknown, TagUnknown } from "../links/errors.ts"
import { AnalyticsQuery, AnalyticsResponse } from "./schema.ts"

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
  .annotate(CountsAsAnalytics, true)
