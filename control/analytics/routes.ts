import { route } from "../http/route.ts"
import { answerAnalytics } from "./answer.ts"
import { AnalyticsQuery, AnalyticsResponse } from "./schema.ts"

export const analyticsRoutes = [
  route({
    method: "GET",
    path: "/v1/analytics",
    group: "analytics",
    summary: "Click counts for a link, a domain or the workspace, over an interval, counted as groupBy says",
    query: AnalyticsQuery,
    success: AnalyticsResponse,
    status: 200,
    allowance: "analytics",
    handler: ({ principal, query: q }) => answerAnalytics(principal, q)
  })
]
