import type { DashboardAnswer } from "../../../control/analytics/schema.ts"
import { call } from "../api/client.ts"
import { useAsync } from "../api/useApi.ts"
import { useLiveClicks } from "../live/LiveEvents.tsx"
import { ErrorNote, Skeleton } from "../ui/controls.tsx"
import { BreakdownPanel } from "./BreakdownPanel.tsx"
import { PANELS } from "./breakdowns.ts"
import { LiveFeed } from "./LiveFeed.tsx"
import { dashboardQueryOf, type Params } from "./query.ts"
import { TimeseriesChart } from "./TimeseriesChart.tsx"
import { TotalsCards } from "./TotalsCards.tsx"
import { ViewFilters } from "./ViewFilters.tsx"

/** Live clicks count in a view that ends now and is filtered by nothing a click would have to be tested against. */
const countsLive = (params: Params) =>
  params.start === undefined && Object.keys(params).every((k) => k === "interval" || k === "linkId")

/**
 * One analytics view: the totals beside the previous period's, clicks over time, a world map and
 * breakdowns as tabs, the latest visits. One request (one analytics allowance) answers it all;
 * until it has, skeletons; when it fails, the failure and a retry, never a number it did not say.
 */
export const AnalyticsView = ({ params, onChange, linkId }: { params: Params; onChange: (p: Params) => void; linkId?: string }) => {
  const asked = linkId === undefined ? params : { ...params, linkId }
  const checked = dashboardQueryOf(asked)
  const view = useAsync(
    (signal) => (checked.ok ? call((c) => c.analytics.dashboard({ query: checked.query }), { signal }) : Promise.resolve({ ok: false as const, failure: checked.failure })),
    [JSON.stringify(asked)]
  )
  useLiveClicks((click) => {
    if (!countsLive(asked) || (linkId !== undefined && click.linkId !== linkId)) return
    view.update((answer) => answer && withClick(answer, click.audience, click.timestamp))
  })
  const answer = view.data
  return (
    <>
      <ViewFilters params={params} onChange={onChange} fixed={linkId === undefined ? [] : ["linkId"]} />
      <ErrorNote failure={view.failure} retry={view.reload} />
      {view.failure === undefined && (
        <>
          <div className="summary" data-testid="window">
            {answer ? <>From {new Date(answer.start).toLocaleString()} to {new Date(answer.end).toLocaleString()}</> : <Skeleton label="Loading analytics…" />}
          </div>
          <TotalsCards totals={answer?.totals} previous={answer?.previous?.totals} />
          {answer?.timeseries ? <TimeseriesChart points={answer.timeseries} previous={answer.previous?.timeseries ?? undefined} /> : <Skeleton className="chart-skeleton" />}
          <div className="breakdowns">
            {PANELS.filter((p) => linkId === undefined || p.title !== "Top links").map((panel) => (
              <BreakdownPanel key={panel.title} title={panel.title} tabs={panel.tabs} rows={answer?.breakdowns} onFilter={(b, value) => {
                if (b.filter) onChange({ ...params, [b.filter]: value })
              }} />
            ))}
            <LiveFeed linkId={linkId} />
          </div>
        </>
      )}
    </>
  )
}

/** A live click added to the answer: the totals, and the last bucket of the timeseries. */
const withClick = (answer: DashboardAnswer, audience: "people" | "agent", timestamp: string): DashboardAnswer => {
  const key = audience === "people" ? "people" : "agents"
  const at = Date.parse(timestamp)
  const series = answer.timeseries
  let bucket = -1
  if (series) for (let i = 0; i < series.length; i++) if (Date.parse(series[i].start) <= at) bucket = i
  return {
    ...answer,
    totals: { ...answer.totals, clicks: answer.totals.clicks + 1, [key]: answer.totals[key] + 1 },
    timeseries: series && bucket >= 0
      ? series.map((p, i) => (i === bucket ? { ...p, clicks: p.clicks + 1, [key]: p[key] + 1 } : p))
      : series
  }
}
