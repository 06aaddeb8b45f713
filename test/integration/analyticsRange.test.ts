import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BACKENDS, type Backend, startBackend } from "../support/backends.ts"
import { apiClient } from "../support/processes.ts"

const HOUR = 3_600_000

/** GET /v1/analytics with start and end: the window answered, its buckets, and bad ranges refused. */
describe.each(BACKENDS)("analytics over a custom window (%s)", (kind) => {
  let backend: Backend
  let api: ReturnType<typeof apiClient>

  beforeAll(async () => {
    backend = await startBackend(kind, {}, { withEngine: false })
    api = apiClient(backend.control.baseUrl, backend.control.firstKey!)
  }, 180_000)

  afterAll(async () => {
    await backend?.stop()
  })

  it("answers the window asked, hourly up to 48 hours and daily beyond", async () => {
    const end = new Date(Math.floor(Date.now() / HOUR) * HOUR - 24 * HOUR)
    const start = new Date(end.getTime() - 48 * HOUR)
    const hourly = await api.get(`/v1/analytics?groupBy=timeseries&start=${start.toISOString()}&end=${end.toISOString()}`)
    expect(hourly.status, JSON.stringify(hourly.body)).toBe(200)
    expect({ start: hourly.body.start, end: hourly.body.end }).toEqual({ start: start.toISOString(), end: end.toISOString() })
    expect(hourly.body.data.length).toBe(49)
    expect(hourly.body.data[0]).toEqual({ start: start.toISOString(), clicks: 0, people: 0, agents: 0 })

    const longer = new Date(start.getTime() - HOUR)
    const daily = await api.get(`/v1/analytics?groupBy=timeseries&start=${longer.toISOString()}&end=${end.toISOString()}`)
    expect(daily.status).toBe(200)
    expect(daily.body.data.length).toBeLessThanOrEqual(4)
    expect(daily.body.data.every((row: any) => row.start.endsWith("T00:00:00.000Z"))).toBe(true)

    const count = await api.get(`/v1/analytics?start=${start.toISOString()}`)
    expect(count.status).toBe(200)
    expect(count.body.data).toEqual({ clicks: 0, people: 0, agents: 0 })
    expect(Date.parse(count.body.end)).toBeGreaterThan(end.getTime())
  })

  it("refuses bad ranges with 422 at the field at fault", async () => {
    for (const [query, field] of [
      ["start=2030-01-02T00:00:00Z&end=2030-01-01T00:00:00Z", "end"],
      ["end=2030-01-01T00:00:00Z", "start"],
      ["start=2030-01-01T00:00:00Z&interval=7d", "interval"],
      ["start=tomorrow", "start"],
      ["start=2030-01-01T00:00:00Z&end=2030-13-01T00:00:00Z", "end"]
    ] as const) {
      const res = await api.get(`/v1/analytics?${query}`)
      expect({ query, status: res.status, code: res.body.error?.code, path: res.body.error?.issues?.[0]?.path })
        .toEqual({ query, status: 422, code: "unprocessable_entity", path: [field] })
    }
  })
})
