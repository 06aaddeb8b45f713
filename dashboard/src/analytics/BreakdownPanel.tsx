import { lazy, Suspense, useId, useRef, useState } from "react"
import { formatCount, Skeleton } from "../ui/controls.tsx"
import { type Breakdown, filterValue, type Row, rowLabel } from "./breakdowns.ts"

const WorldMap = lazy(() => import("./WorldMap.tsx"))

interface Props {
  readonly title: string
  readonly tabs: ReadonlyArray<Breakdown>
  /** The rows of each breakdown of the view, undefined while it loads. */
  readonly rows: Readonly<Record<string, ReadonlyArray<Row>>> | undefined
  readonly onFilter: (breakdown: Breakdown, value: string) => void
}

const Ranked = ({ breakdown, rows, onFilter }: { breakdown: Breakdown; rows: ReadonlyArray<Row>; onFilter: Props["onFilter"] }) => {
  const max = Math.max(1, ...rows.map((r) => r.clicks))
  if (rows.length === 0) return <p className="hint">No clicks in this view.</p>
  return (
    <ol className="ranked">
      {rows.map((row, i) => {
        const label = rowLabel(breakdown, row)
        const value = filterValue(breakdown, row)
        const content = (
          <>
            <span className="bar" style={{ width: `${(row.clicks / max) * 100}%` }} aria-hidden="true" />
            <span className="label">{label}</span>
            <span className="count" title={`${row.people} people, ${row.agents} AI agents`}>{formatCount(row.clicks)}</span>
          </>
        )
        return (
          <li key={i}>
            {breakdown.filter !== undefined && value !== undefined
              ? <button type="button" className="row-button" onClick={() => onFilter(breakdown, value)} aria-label={`Filter by ${label}: ${row.clicks} clicks`}>{content}</button>
              : <div className="row-button static">{content}</div>}
          </li>
        )
      })}
    </ol>
  )
}

/** One panel of breakdowns as tabs (arrow keys move between them, as the ARIA tabs pattern says). */
export const BreakdownPanel = ({ title, tabs, rows, onFilter }: Props) => {
  const id = useId()
  const [chosen, setChosen] = useState(0)
  const buttons = useRef<Array<HTMLButtonElement | null>>([])
  const breakdown = tabs[chosen]
  const choose = (i: number) => {
    setChosen(i)
    buttons.current[i]?.focus()
  }
  return (
    <section className="panel breakdown" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{title}</h2>
      {tabs.length > 1 && (
        <div role="tablist" aria-label={title} className="tabs">
          {tabs.map((tab, i) => (
            <button
              key={tab.groupBy}
              ref={(b) => {
                buttons.current[i] = b
              }}
              type="button"
              role="tab"
              id={`${id}-tab-${i}`}
              aria-selected={i === chosen}
              aria-controls={`${id}-panel`}
              tabIndex={i === chosen ? 0 : -1}
              onClick={() => setChosen(i)}
              onKeyDown={(e) => {
                if (e.key === "ArrowRight") choose((chosen + 1) % tabs.length)
                else if (e.key === "ArrowLeft") choose((chosen - 1 + tabs.length) % tabs.length)
                else if (e.key === "Home") choose(0)
                else if (e.key === "End") choose(tabs.length - 1)
              }}
            >
              {tab.title}
            </button>
          ))}
        </div>
      )}
      <div id={`${id}-panel`} role={tabs.length > 1 ? "tabpanel" : undefined} aria-labelledby={tabs.length > 1 ? `${id}-tab-${chosen}` : undefined}>
        {rows === undefined
          ? <Skeleton label={`Loading ${breakdown.title.toLowerCase()}…`} lines={5} />
          : (
            <>
              {breakdown.groupBy === "countries" && (rows.countries ?? []).length > 0 && (
                <Suspense fallback={<Skeleton className="map-skeleton" />}>
                  <WorldMap rows={rows.countries ?? []} onPick={(country) => onFilter(breakdown, country)} />
                </Suspense>
              )}
              <Ranked breakdown={breakdown} rows={rows[breakdown.groupBy] ?? []} onFilter={onFilter} />
            </>
          )}
      </div>
    </section>
  )
}
