import { useEffect, useRef } from "react"
import uPlot from "uplot"

export interface Point {
  readonly start: string
  readonly people: number
  readonly agents: number
}

/** Clicks over time, people and AI agents as two series; the same numbers as a table for screen readers. */
export const TimeseriesChart = ({ points }: { points: ReadonlyArray<Point> }) => {
  const box = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const element = box.current
    if (element === null) return
    const data: uPlot.AlignedData = [
      points.map((p) => Date.parse(p.start) / 1000),
      points.map((p) => p.people),
      points.map((p) => p.agents)
    ]
    const width = () => Math.max(280, element.clientWidth)
    const plot = new uPlot({
      width: width(),
      height: 260,
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
      series: [
        {},
        { label: "People", stroke: "#2563eb", fill: "rgba(37, 99, 235, 0.12)", width: 2 },
        { label: "AI agents", stroke: "#d97706", fill: "rgba(217, 119, 6, 0.12)", width: 2 }
      ],
      axes: [{}, { values: (_u, ticks) => ticks.map((t) => (Number.isInteger(t) ? String(t) : "")) }]
    }, data, element)
    const observer = new ResizeObserver(() => plot.setSize({ width: width(), height: 260 }))
    observer.observe(element)
    return () => {
      observer.disconnect()
      plot.destroy()
    }
  }, [points])
  return (
    <figure className="chart">
      <div ref={box} role="img" aria-label={`Clicks over time: ${points.reduce((s, p) => s + p.people, 0)} by people, ${points.reduce((s, p) => s + p.agents, 0)} by AI agents`} />
      <table className="visually-hidden">
        <caption>Clicks over time</caption>
        <thead><tr><th scope="col">From</th><th scope="col">People</th><th scope="col">AI agents</th></tr></thead>
        <tbody>{points.map((p) => <tr key={p.start}><td>{p.start}</td><td>{p.people}</td><td>{p.agents}</td></tr>)}</tbody>
      </table>
    </figure>
  )
}
