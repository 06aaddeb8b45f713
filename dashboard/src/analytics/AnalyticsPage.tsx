import { useEffect, useId, useState } from "react"
import { type GroupBy, INTERVALS, type Interval } from "../../../control/analytics/schema.ts"
import { call } from "../api/client.ts"
import type { ApiFailure, Outcome } from "../api/failure.ts"
import { ErrorNote } from "../ui/controls.tsx"
import { navigate, useLocation } from "../ui/router.tsx"
import { fromLocalInput } from "../links/linkForm.ts"
import { BREAKDOWNS, type Breakdown, FILTERS, type FilterKey, filterValue, type Row, rowLabel } from "./breakdowns.ts"
import { type Point, TimeseriesChart } from "./TimeseriesChart.tsx"

interface AnalyticsAnswer {
  readonly start: string
  readonly end: string
  readonly data: unknown
}

type Params = Record<string, string>

/**
 * One analytics query, a named interval or a custom range (start, end). The parameters come from
 * the page's URL as text: the declaration's query schema checks them as the server would.
 */
const query = (params: Params, groupBy: GroupBy): Promise<Outcome<AnalyticsAnswer>> => {
  const { limit, ...rest } = params
  return call((c) => c.analytics.query({ query: { ...rest, groupBy, ...(limit === undefined ? {} : { limit: Number(limit) }) } as never }))
}

/** The page's state lives in its URL, so a filtered view can be bookmarked and shared. */
const paramsOf = (url: URL): Params => {
  const params: Params = {}
  for (const [k, v] of url.searchParams) if (v !== "") params[k] = v
  if (params.start === undefined && params.interval === undefined) params.interval = "30d"
  return params
}

const setParams = (params: Params) => navigate(`/analytics?${new URLSearchParams(params)}`)

const BreakdownPanel = ({ params, initial }: { params: Params; initial: GroupBy }) => {
  const selectId = useId()
  const [groupBy, setGroupBy] = useState<GroupBy>(initial)
  const [rows, setRows] = useState<ReadonlyArray<Row>>()
  const [failure, setFailure] = useState<ApiFailure>()
  const breakdown = BREAKDOWNS.find((b) => b.groupBy === groupBy)!
  const key = JSON.stringify(params)
  useEffect(() => {
    setRows(undefined)
    query({ ...params, limit: "10" }, groupBy).then((o) => {
      if (!o.ok) return setFailure(o.failure)
      setFailure(undefined)
      setRows(Array.isArray(o.value.data) ? (o.value.data as ReadonlyArray<Row>) : [])
    })
  }, [key, groupBy])
  const max = Math.max(1, ...(rows ?? []).map((r) => r.clicks))
  const pick = (b: Breakdown, row: Row) => {
    const value = filterValue(b, row)
    if (b.filter !== undefined && value !== undefined) setParams({ ...params, [b.filter]: value })
  }
  return (
    <section className="panel breakdown" aria-labelledby={`${selectId}-title`}>
      <h2 id={`${selectId}-title`} className="visually-hidden">{breakdown.title}</h2>
      <label htmlFor={selectId} className="visually-hidden">Breakdown</label>
      <select id={selectId} value={groupBy} onChange={(e) => setGroupBy(e.target.value as GroupBy)}>
        {BREAKDOWNS.map((b) => <option key={b.groupBy} value={b.groupBy}>{b.title}</option>)}
      </select>
      <ErrorNote failure={failure} />
      {rows === undefined && !failure && <p role="status">Loading…</p>}
      {rows?.length === 0 && <p>No clicks.</p>}
      <ol className="ranked">
        {rows?.map((row, i) => {
          const label = rowLabel(breakdown, row)
          const content = (
            <>
              <span className="bar" style={{ width: `${(row.clicks / max) * 100}%` }} aria-hidden="true" />
              <span className="label">{label}</span>
              <span className="count" title={`${row.people} people, ${row.agents} AI agents`}>{row.clicks}</span>
            </>
          )
          return (
            <li key={i}>
              {breakdown.filter !== undefined && filterValue(breakdown, row) !== undefined
                ? <button type="button" className="row-button" onClick={() => pick(breakdown, row)} aria-label={`Filter by ${label}: ${row.clicks} clicks`}>{content}</button>
                : <div className="row-button static">{content}</div>}
            </li>
          )
        })}
      </ol>
    </section>
  )
}

/** Clicks over time (people and AI agents), breakdowns as ranked bars, every filter, interval or custom range. */
export const AnalyticsPage = () => {
  const location = useLocation()
  const params = paramsOf(location)
  const key = JSON.stringify(params)
  const [points, setPoints] = useState<ReadonlyArray<Point>>([])
  const [window_, setWindow] = useState<{ start: string; end: string }>()
  const [failure, setFailure] = useState<ApiFailure>()
  const [custom, setCustom] = useState({ start: "", end: "" })
  const [newFilter, setNewFilter] = useState<{ key: FilterKey; value: string }>({ key: "country", value: "" })
  const ids = { interval: useId(), start: useId(), end: useId(), filterKey: useId(), filterValue: useId(), audience: useId() }

  useEffect(() => {
    query(params, "timeseries").then((o) => {
      if (!o.ok) return setFailure(o.failure)
      setFailure(undefined)
      setWindow({ start: o.value.start, end: o.value.end })
      setPoints(Array.isArray(o.value.data) ? (o.value.data as ReadonlyArray<Point>) : [])
    })
  }, [key])

  const { interval, start, end, audience, ...rest } = params
  const active = Object.entries(rest).filter(([k]) => k !== "limit")
  const total = points.reduce((s, p) => s + p.people + p.agents, 0)
  return (
    <section aria-labelledby="analytics-title">
      <h1 id="analytics-title">Analytics</h1>
      <div className="panel filters">
        <div className="field">
          <label htmlFor={ids.interval}>Interval</label>
          <select id={ids.interval} value={start ? "custom" : interval} onChange={(e) => {
            const { start: _s, end: _e, ...others } = params
            if (e.target.value !== "custom") setParams({ ...others, interval: e.target.value })
            else setCustom({ start: "", end: "" })
          }}>
            {INTERVALS.map((i: Interval) => <option key={i} value={i}>{i === "all" ? "All time" : `Last ${i}`}</option>)}
            <option value="custom">Custom range</option>
          </select>
        </div>
        <form className="inline" onSubmit={(e) => {
          e.preventDefault()
          const s = fromLocalInput(custom.start)
          const en = fromLocalInput(custom.end)
          if (s === null || en === null) return
          const { interval: _i, ...others } = params
          setParams({ ...others, start: s, end: en })
        }}>
          <div className="field">
            <label htmlFor={ids.start}>From</label>
            <input id={ids.start} type="datetime-local" value={custom.start} onChange={(e) => setCustom({ ...custom, start: e.target.value })} />
          </div>
          <div className="field">
            <label htmlFor={ids.end}>To</label>
            <input id={ids.end} type="datetime-local" value={custom.end} onChange={(e) => setCustom({ ...custom, end: e.target.value })} />
          </div>
          <button type="submit" disabled={!custom.start || !custom.end}>Apply range</button>
        </form>
        <div className="field">
          <label htmlFor={ids.audience}>Audience</label>
          <select id={ids.audience} value={audience ?? ""} onChange={(e) => {
            const { audience: _a, ...others } = params
            setParams(e.target.value ? { ...others, audience: e.target.value } : others)
          }}>
            <option value="">People and AI agents</option>
            <option value="people">People</option>
            <option value="agents">AI agents</option>
          </select>
        </div>
        <form className="inline" onSubmit={(e) => {
          e.preventDefault()
          if (newFilter.value.trim() !== "") setParams({ ...params, [newFilter.key]: newFilter.value.trim() })
          setNewFilter({ ...newFilter, value: "" })
        }}>
          <div className="field">
            <label htmlFor={ids.filterKey}>Filter</label>
            <select id={ids.filterKey} value={newFilter.key} onChange={(e) => setNewFilter({ ...newFilter, key: e.target.value as FilterKey })}>
              {FILTERS.map(([k, label]) => <option key={k} value={k}>{label}</option>)}
            </select>
          </div>
          <div className="field">
            <label htmlFor={ids.filterValue}>Value</label>
            <input id={ids.filterValue} value={newFilter.value} onChange={(e) => setNewFilter({ ...newFilter, value: e.target.value })} placeholder="comma-separated for several" />
          </div>
          <button type="submit">Add filter</button>
        </form>
      </div>
      {active.length > 0 && (
        <ul className="chips" aria-label="Active filters">
          {active.map(([k, v]) => (
            <li key={k}>
              <span>{FILTERS.find(([f]) => f === k)?.[1] ?? k}: {v}</span>
              <button type="button" className="small" aria-label={`Remove filter ${k}`} onClick={() => {
                const { [k]: _removed, ...others } = params
                setParams(others)
              }}>×</button>
            </li>
          ))}
        </ul>
      )}
      <ErrorNote failure={failure} />
      <p className="summary" data-testid="total-clicks">
        {total} {total === 1 ? "click" : "clicks"}{window_ && <> from {new Date(window_.start).toLocaleString()} to {new Date(window_.end).toLocaleString()}</>}
      </p>
      <TimeseriesChart points={points} />
      <div className="breakdowns">
        <BreakdownPanel params={params} initial="countries" />
        <BreakdownPanel params={params} initial="devices" />
        <BreakdownPanel params={params} initial="top_links" />
        <BreakdownPanel params={params} initial="referers" />
      </div>
    </section>
  )
}
