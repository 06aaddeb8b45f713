import { useId, useState } from "react"
import { INTERVALS, type Interval } from "../../../control/analytics/schema.ts"
import { fromLocalInput } from "../links/linkForm.ts"
import { FILTERS, type FilterKey } from "./breakdowns.ts"
import type { Params } from "./query.ts"

/** Interval or custom range, audience, any filter; the active filters as chips to remove. */
export const ViewFilters = ({ params, onChange, fixed = [] }: { params: Params; onChange: (p: Params) => void; fixed?: ReadonlyArray<string> }) => {
  const ids = { interval: useId(), start: useId(), end: useId(), filterKey: useId(), filterValue: useId(), audience: useId() }
  const [customOpen, setCustomOpen] = useState(params.start !== undefined)
  const [custom, setCustom] = useState({ start: "", end: "" })
  const [newFilter, setNewFilter] = useState<{ key: FilterKey; value: string }>({ key: "country", value: "" })
  const { interval, start, end: _end, audience, ...rest } = params
  const active = Object.entries(rest).filter(([k]) => !fixed.includes(k))
  const offered = FILTERS.filter(([k]) => !fixed.includes(k))
  return (
    <>
      <div className="panel filters">
        <div className="field">
          <label htmlFor={ids.interval}>Interval</label>
          <select id={ids.interval} value={start || customOpen ? "custom" : interval} onChange={(e) => {
            const { start: _s, end: _e, ...others } = params
            if (e.target.value === "custom") return setCustomOpen(true)
            setCustomOpen(false)
            onChange({ ...others, interval: e.target.value })
          }}>
            {INTERVALS.map((i: Interval) => <option key={i} value={i}>{i === "all" ? "All time" : `Last ${i}`}</option>)}
            <option value="custom">Custom range</option>
          </select>
        </div>
        {customOpen && (
          <form className="inline" aria-label="Custom range" onSubmit={(e) => {
            e.preventDefault()
            const s = fromLocalInput(custom.start)
            const en = fromLocalInput(custom.end)
            if (s === null || en === null) return
            const { interval: _i, ...others } = params
            onChange({ ...others, start: s, end: en })
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
        )}
        <div className="field">
          <label htmlFor={ids.audience}>Audience</label>
          <select id={ids.audience} value={audience ?? ""} onChange={(e) => {
            const { audience: _a, ...others } = params
            onChange(e.target.value ? { ...others, audience: e.target.value } : others)
          }}>
            <option value="">People and AI agents</option>
            <option value="people">People</option>
            <option value="agents">AI agents</option>
          </select>
        </div>
        <form className="inline" aria-label="Add a filter" onSubmit={(e) => {
          e.preventDefault()
          if (newFilter.value.trim() !== "") onChange({ ...params, [newFilter.key]: newFilter.value.trim() })
          setNewFilter({ ...newFilter, value: "" })
        }}>
          <div className="field">
            <label htmlFor={ids.filterKey}>Filter</label>
            <select id={ids.filterKey} value={newFilter.key} onChange={(e) => setNewFilter({ ...newFilter, key: e.target.value as FilterKey })}>
              {offered.map(([k, label]) => <option key={k} value={k}>{label}</option>)}
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
                onChange(others)
              }}>×</button>
            </li>
          ))}
        </ul>
      )}
    </>
  )
}
