import { describe, expect, it } from "vitest"
import { type BusState, type DatabaseState, readinessReport } from "../../control/ops/readiness.ts"
import { engineReadiness } from "../../engine/ops/adminServer.ts"

describe("readinessReport: control's /readyz is 200 while the database answers; a lost bus is degraded, not unready", () => {
  const rows: ReadonlyArray<readonly [DatabaseState, BusState, number, string, RegExp | undefined]> = [
    ["ok", "ok", 200, "ready", undefined],
    ["ok", "disconnected", 200, "degraded", undefined],
    ["timeout", "ok", 503, "not_ready", /database did not answer within 1 s/],
    ["unreachable", "ok", 503, "not_ready", /database cannot be reached/],
    ["timeout", "disconnected", 503, "not_ready", /database did not answer/]
  ]
  it.each(rows)("database %s, bus %s -> %i %s", (database, bus, status, word, message) => {
    const report = readinessReport(database, bus)
    expect(report.status).toBe(status)
    expect(report.body).toMatchObject({ status: word, database, bus })
    if (message === undefined) {
      expect(report.body).not.toHaveProperty("error")
    } else {
      expect((report.body as { error: { code: string; message: string } }).error).toEqual({ code: "internal_server_error", message: expect.stringMatching(message) })
    }
    if (bus === "disconnected" && status === 200) expect((report.body as { warning: string }).warning).toMatch(/change bus is disconnected/)
  })
})

describe("engineReadiness: an engine is unready only when it can answer neither from the database nor from what it knows", () => {
  it.each<readonly [boolean, boolean, number, number, string]>([
    [true, true, 0, 200, "ready"],
    [true, false, 0, 200, "degraded"],
    [false, true, 12, 200, "degraded"],
    [false, false, 1, 200, "degraded"],
    [false, true, 0, 503, "not_ready"],
    [false, false, 0, 503, "not_ready"]
  ])("database %s, bus %s, %i known -> %i %s", (database, bus, known, status, word) => {
    const { status: answered, body } = engineReadiness(database, bus, known)
    expect(answered).toBe(status)
    expect(body).toMatchObject({ status: word, database: database ? "ok" : "unreachable", bus: bus ? "ok" : "disconnected" })
    if (status === 503) expect(body).toMatchObject({ error: { code: "internal_server_error" } })
  })
})
