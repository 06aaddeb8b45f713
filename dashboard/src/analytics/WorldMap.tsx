import { COUNTRIES, HEIGHT, WIDTH } from "virtual:world-geometry"
import type { Row } from "./breakdowns.ts"
import { countryName } from "./breakdowns.ts"

/**
 * Countries shaded by their clicks (Natural Earth's 1:110m outlines, bundled: no request to
 * another host); a country with clicks filters the view when clicked. The ranked list beside it
 * holds the same numbers for screen readers and keyboards.
 */
const WorldMap = ({ rows, onPick }: { rows: ReadonlyArray<Row>; onPick: (country: string) => void }) => {
  const clicks = new Map<string, number>()
  for (const row of rows) if ("country" in row && row.country) clicks.set(row.country.toUpperCase(), row.clicks)
  const max = Math.max(1, ...clicks.values())
  return (
    <svg className="world-map" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={`Map of clicks by country: ${clicks.size} countries`}>
      {COUNTRIES.map(([code, name, d]) => {
        const n = clicks.get(code)
        return (
          <path
            key={code}
            d={d}
            className={n ? "country hit" : "country"}
            style={n ? { fillOpacity: 0.25 + 0.75 * (n / max) } : undefined}
            onClick={n ? () => onPick(code) : undefined}
          >
            <title>{n ? `${countryName(code)}: ${n} clicks` : name}</title>
          </path>
        )
      })}
    </svg>
  )
}

export default WorldMap
