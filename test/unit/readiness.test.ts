import { describe, expect, it } from "vitest"
import { type BusState, type DatabaseState, readinessReport } from "../../control/http/readiness.ts"

describe("readinessReport: /readyz is 200 only when the database answers and the bus is connected", () => {
  const rows: ReadonlyArray<readonly [DatabaseState, BusState, number, RegExp | undefined]> = [
    ["ok", "ok", 200, undefined],
    ["timeout", "ok", 503, /database did not answer within 1 s/],
    ["unreachable", "ok", 503, /database cannot be reached/],
    ["ok", "disconnected", 503, /bus is disconnected/],
    ["timeout", "disconnected", 503, /database did not answer.*; the change bus is disconnected/]
  ]
  it.each(rows)("database %s, bus %s -> %i", (database, bus, status, message) => {
    const report = readinessReport(database, bus)
    expect(report.status).toBe(status)
    expect(report.body).toMatchObject({ status: status === 200 ? "ready" : "not_ready", database, bus })
    if (message === undefined) {
      expect(report.body).not.toHaveProperty("error")
    } else {
      expect((report.body as { error: { code: string; message: string } }).error).toEqual({ code: "internal_server_error", message: expect.stringMatching(message) })
    }
  })
})
