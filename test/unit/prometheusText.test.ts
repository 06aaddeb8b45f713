import { describe, expect, it } from "vitest"
import { addCounts, asSeries, FixedHistogram } from "../../shared/ops/fixedHistogram.ts"
import { renderFamilies } from "../../shared/ops/prometheusText.ts"

describe("FixedHistogram", () => {
  it.each([
    [0, 0],
    [1, 0], // on a boundary: counted in it (le means less than or equal)
    [1.0001, 1],
    [5, 1],
    [9.99, 2],
    [10, 2],
    [10.5, 3], // above every boundary: +Inf
    [1e9, 3]
  ])("counts %f in bucket %i of [1, 5, 10, +Inf]", (value, bucket) => {
    const histogram = new FixedHistogram([1, 5, 10])
    histogram.record(value)
    const expected = [0, 0, 0, 0]
    expected[bucket] = 1
    expect(histogram.snapshot()).toEqual({ counts: expected, sum: value })
  })

  it("adds several threads' counts", () => {
    expect(addCounts([{ counts: [1, 0, 2], sum: 3 }, { counts: [0, 4, 1], sum: 5 }, { counts: [], sum: 0 }], 3)).toEqual({ counts: [1, 4, 3], sum: 8 })
  })
})

describe("renderFamilies", () => {
  it("writes HELP, TYPE and samples, labels escaped", () => {
    expect(renderFamilies([
      { name: "a_total", help: "line one\nline \\two", type: "counter", samples: [{ labels: { path: `say "hi"\n` }, value: 2 }] },
      { name: "b", help: "gauge", type: "gauge", samples: [{ value: 1.5 }, { labels: { x: "y" }, value: NaN }] }
    ])).toBe([
      "# HELP a_total line one\\nline \\\\two",
      "# TYPE a_total counter",
      `a_total{path="say \\"hi\\"\\n"} 2`,
      "# HELP b gauge",
      "# TYPE b gauge",
      "b 1.5",
      `b{x="y"} NaN`,
      ""
    ].join("\n"))
  })

  it("writes a histogram's buckets cumulatively, in the unit asked for", () => {
    const text = renderFamilies([{
      name: "t_seconds",
      help: "time",
      type: "histogram",
      series: [asSeries([0.05, 1], { counts: [2, 1, 3], sum: 4000 }, 0.001, { kind: "x" })]
    }])
    expect(text.split("\n")).toEqual([
      "# HELP t_seconds time",
      "# TYPE t_seconds histogram",
      `t_seconds_bucket{kind="x",le="0.00005"} 2`,
      `t_seconds_bucket{kind="x",le="0.001"} 3`,
      `t_seconds_bucket{kind="x",le="+Inf"} 6`,
      `t_seconds_sum{kind="x"} 4`,
      `t_seconds_count{kind="x"} 6`,
      ""
    ])
  })

  it("writes nothing for no families", () => expect(renderFamilies([])).toBe(""))
})
