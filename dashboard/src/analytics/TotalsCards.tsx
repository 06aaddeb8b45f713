import type { DashboardAnswer } from "../../../control/analytics/schema.ts"
import { formatCount, Skeleton } from "../ui/controls.tsx"

type Totals = DashboardAnswer["totals"]

const CARDS: ReadonlyArray<[keyof Totals, string]> = [["clicks", "Clicks"], ["people", "People"], ["agents", "AI agents"]]

/** The change against the previous period, in words a screen reader says too. */
const Change = ({ now, before }: { now: number; before: number | undefined }) => {
  if (before === undefined) return null
  if (before === 0) return <span className="change">{now === 0 ? "no change" : "new this period"}</span>
  const percent = Math.round(((now - before) / before) * 100)
  const word = percent > 0 ? "up" : percent < 0 ? "down" : "no change"
  return (
    <span className={`change ${percent > 0 ? "up" : percent < 0 ? "down" : ""}`}>
      <span aria-hidden="true">{percent > 0 ? "▲" : percent < 0 ? "▼" : "="} {Math.abs(percent)}%</span>
      <span className="visually-hidden">{word} {Math.abs(percent)}% on the previous period</span>
    </span>
  )
}

/** Clicks, people and AI agents of the window, beside the previous window's; skeletons until answered. */
export const TotalsCards = ({ totals, previous }: { totals: Totals | undefined; previous: Totals | undefined }) => (
  <ul className="cards" aria-label="Totals">
    {CARDS.map(([key, label]) => (
      <li key={key} className="card">
        <span className="card-label">{label}</span>
        {totals === undefined
          ? <Skeleton className="card-skeleton" />
          : (
            <>
              <strong className="card-value" data-testid={`total-${key}`}>{formatCount(totals[key])}</strong>
              <Change now={totals[key]} before={previous?.[key]} />
            </>
          )}
      </li>
    ))}
  </ul>
)
