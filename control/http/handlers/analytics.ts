import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { LinkSettings } from "../../../shared/settings/LinkSettings.ts"
import { Database } from "../../../shared/db/Database.ts"
import { Api } from "../../api/Api.ts"
import { CurrentPrincipal } from "../../kernel/Principal.ts"
import { observeAnalyticsQuery } from "../../ops/metrics.ts"
import { answerAnalytics } from "../../analytics/answer.ts"
import { answerDashboard } from "../../analytics/dashboard.ts"
import { ClickStore } from "../../analytics/ClickStore.ts"
import type { AnalyticsResponse } from "../../analytics/schema.ts"

export const AnalyticsHandlers = HttpApiBuilder.group(Api, "analytics", (handlers) =>
  Effect.gen(function*() {
    const store = yield* ClickStore
    const linkSettings = yield* LinkSettings
    const database = yield* Database
    return handlers.handle("query", ({ query }) =>
      Effect.flatMap(Effect.service(CurrentPrincipal), (principal) => observeAnalyticsQuery(query.groupBy ?? "count", answerAnalytics(principal, query))).pipe(
        // Breakdown rows are built from the query's columns; the success schema checks them as they go out.
        Effect.map((answer) => answer as typeof AnalyticsResponse.Type),
        Effect.provideService(ClickStore, store),
        Effect.provideService(LinkSettings, linkSettings),
        Effect.provideService(Database, database)
      ))
      .handle("dashboard", ({ query }) =>
        Effect.flatMap(Effect.service(CurrentPrincipal), (principal) => observeAnalyticsQuery("dashboard", answerDashboard(principal, query))).pipe(
          Effect.provideService(ClickStore, store),
          Effect.provideService(LinkSettings, linkSettings),
          Effect.provideService(Database, database)
        ))
  }))
