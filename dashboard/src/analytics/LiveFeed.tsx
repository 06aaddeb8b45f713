import { useLive } from "../live/LiveEvents.tsx"
import { countryName } from "./breakdowns.ts"

/** The latest visits as they arrive (country, device, person or AI agent), newest first. */
export const LiveFeed = ({ linkId }: { linkId?: string }) => {
  const { recent, connected } = useLive()
  const visits = linkId === undefined ? recent : recent.filter((c) => c.linkId === linkId)
  return (
    <section className="panel live-feed" aria-labelledby="live-title">
      <h2 id="live-title">Live visits <span className={connected ? "live-dot on" : "live-dot"} aria-label={connected ? "connected" : "not connected"} role="img" /></h2>
      {visits.length === 0
        ? <p className="hint">Visits show here as they happen.</p>
        : (
          <ol className="feed" aria-live="polite">
            {visits.slice(0, 10).map((c, i) => (
              <li key={`${c.timestamp}-${i}`}>
                <time dateTime={c.timestamp}>{new Date(c.timestamp).toLocaleTimeString()}</time>{" "}
                <strong>{c.domain}/{c.slug}</strong>{" "}
                <span>{countryName(c.country)}</span> · <span>{c.device}</span> · <span>{c.audience === "agent" ? "AI agent" : "person"}</span>
              </li>
            ))}
          </ol>
        )}
    </section>
  )
}
