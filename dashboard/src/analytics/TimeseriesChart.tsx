import { useEffect, useRef } from "react"
import uPlot from "uplot"
import type { TimeseriesPoint } from "../../../control/analytics/schema.ts"

/**
 * Clicks over time, people and AI agents, and the previous period's clicks (dashed, shifted onto
 * this one); the values of the bucket under the pointer in the legend. The same numbers as a table
 * for screen readers.
 */
export const TimeseriesChart = ({ points, previous }: { points: ReadonlyArray<TimeseriesPoint>; previous: ReadonlyArray<TimeseriesPoint> | undefined }) => {
  const box = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const element = box.current
    if (element === null) return
    const data: uPlot.AlignedData = [
      points.map((p) => Date.parse(p.start) / 1000),
      points.map((p) => p.people),
      points.map((p) => p.agents),
      ...(previous ? [points.map((_, i) => previous[i]?.clicks ?? null)] : [])
    ]
    const width = () => Math.max(240, element.clientWidth)
    const height = () => (element.clientWidth < 500 ? 200 : 260)
    const plot = new uPlot({
      width: width(),
      height: height(),
      cursor: { drag: { x: false, y: false } },
      legend: { live: true },
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
      series: [
        {},
        { label: "People", stroke: "#2563eb", fill: "rgba(37, 99, 235, 0.12)", width: 2 },
        { label: "AI agents", stroke: "#b45309", fill: "rgba(180, 83, 9, 0.12)", width: 2 },
        ...(previous ? [{ label: "Clicks, previous period", stroke: "#6b7280", dash: [6, 4], width: 1.5 }] : [])
      ],
      axes: [{ stroke: "#6b7280" }, { stroke: "#6b7280", values: (_u, ticks) => ticks.map((t) => (Number.isInteger(t) ? String(t) : "")) }]
    }, data, element)
    const observer = new ResizeObserver(() => plot.setSize({ width: width(), height: height() }))
    observer.observe(element)
    return () => {
      observer.disconnect()
      plot.destroy()
    }
  }, [points, previous])
  const people = points.reduce((s, p) => s + p.people, 0)
  const agents = points.reduce((s, p) => s + p.agents, 0)
  return (
    <figure className="chart">
      <div ref={box} role="img" aria-label={`Clicks over time: ${people} by people, ${agents} by AI agents`} />
      {/* In a box of its own: a table does not clip its cells (overflow does not apply to it), which pushed a phone's page sideways. */}
      <div className="visually-hidden">
        <table>
          <caption>Clicks over time</caption>
          <thead><tr><th scope="col">From</th><th scope="col">People</th><th scope="col">AI agents</th></tr></thead>
          <tbody>{points.map((p) => <tr key={p.start}><td>{p.start}</td><td>{p.people}</td><td>{p.agents}</td></tr>)}</tbody>
        </table>
      </div>
    </figure>
  )
}
