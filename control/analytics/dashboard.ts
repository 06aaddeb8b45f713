import { Effect } from "effect"
import { commaList } from "../kernel/fields.ts"
import type { Principal } from "../kernel/Principal.ts"
import { PLAN_LIMITS } from "../kernel/plans.ts"
import { countGroup, type PreparedQuestion, prepareQuestion } from "./answer.ts"
import { requestedWindow } from "./resolve.ts"
import type { BreakdownGroup, DashboardAnswer, DashboardQuery, GroupBy } from "./schema.ts"

const DAY = 86_400_000

/**
 * The window just before `window`, as long as it, with the same buckets; none for "all time", or
 * when it reaches past the plan's history (its counts would be cut short and look like a fall).
 */
export const previousWindow = (
  q: Pick<DashboardQuery, "interval" | "start">,
  window: { readonly fromMs: number; readonly toMs: number; readonly bucket: "hour" | "day" },
  historyDays: number,
  nowMs: number
) => {
  if (q.start === undefined && q.interval === "all") return undefined
  const length = window.toMs - window.fromMs
  const fromMs = window.fromMs - length
  if (length <= 0 || fromMs < nowMs - historyDays * DAY) return undefined
  return { fromMs, toMs: window.fromMs, bucket: window.bucket }
}

const period = (prepared: PreparedQuestion, timeseries: boolean) =>
  Effect.gen(function*() {
    const totals = yield* countGroup(prepared, "count", 1)
    const series = timeseries ? yield* countGroup(prepared, "timeseries", 1) : null
    return {
      ...prepared.range,
      totals: totals as DashboardAnswer["totals"],
      timeseries: series as DashboardAnswer["timeseries"]
    }
  })

/**
 * One dashboard view: the filter resolved once, then the totals and each part asked for, read
 * one after the other from the same files (DuckDB answers one query at a time per connection).
 */
export const answerDashboard = (principal: Principal, q: DashboardQuery) =>
  Effect.gen(function*() {
    const nowMs = Date.now()
    const include = new Set(commaList(q.include))
    const window = requestedWindow(q, principal.plan, nowMs)
    const linkIds = commaList(q.linkIds)
    const prepared = yield* prepareQuestion(principal, q, window, linkIds)
    const current = yield* period(prepared, include.has("timeseries"))
    const before = include.has("previous") ? previousWindow(q, window, PLAN_LIMITS[principal.plan].analyticsHistoryDays, nowMs) : undefined
    const previous = before === undefined
      ? null
      : yield* period(yield* prepareQuestion(principal, q, before, linkIds), include.has("timeseries"))
    const breakdowns: Record<string, DashboardAnswer["breakdowns"][string]> = {}
    for (const part of include) {
      if (part === "timeseries" || part === "previous") continue
      // Asked for by id, every link answers (up to the 100 ids a request may name).
      const limit = linkIds.length > 0 && part === "top_links" ? linkIds.length : q.limit ?? 10
      breakdowns[part] = (yield* countGroup(prepared, part as BreakdownGroup as GroupBy, limit)) as DashboardAnswer["breakdowns"][string]
    }
    return { ...current, previous, breakdowns } satisfies DashboardAnswer
  })
