import { describe, expect, it } from "vitest"
import { isDatabaseUnavailable } from "../../shared/db/unavailable.ts"

const withCode = (code: unknown) => Object.assign(new Error("x"), { code })

describe("isDatabaseUnavailable: a 503 to retry, or a fault to log as 500", () => {
  const rows: ReadonlyArray<readonly [what: string, error: unknown, expected: boolean]> = [
    ["postgres.js connect timeout", withCode("CONNECT_TIMEOUT"), true],
    ["postgres.js connection closed", withCode("CONNECTION_CLOSED"), true],
    ["postgres.js connection destroyed", withCode("CONNECTION_DESTROYED"), true],
    ["postgres.js pool ended", withCode("CONNECTION_ENDED"), true],
    ["refused", withCode("ECONNREFUSED"), true],
    ["reset", withCode("ECONNRESET"), true],
    ["hung socket dropped", withCode("ETIMEDOUT"), true],
    ["host unreachable", withCode("EHOSTUNREACH"), true],
    ["name not resolved", withCode("ENOTFOUND"), true],
    ["statement_timeout", withCode("57014"), true],
    ["lock_timeout", withCode("55P03"), true],
    ["idle in transaction timeout", withCode("25P03"), true],
    ["server shutting down", withCode("57P01"), true],
    ["server starting up", withCode("57P03"), true],
    ["too many connections", withCode("53300"), true],
    ["connection exception class", withCode("08006"), true],
    ["connection failure", withCode("08001"), true],
    ["unique violation", withCode("23505"), false],
    ["syntax error", withCode("42601"), false],
    ["undefined column", withCode("42703"), false],
    ["serialization failure", withCode("40001"), false],
    ["a 08 lookalike", withCode("080"), false],
    ["numeric code", withCode(57014), false],
    ["no code", new Error("boom"), false],
    ["a string", "ECONNREFUSED", false],
    ["null", null, false],
    ["undefined", undefined, false]
  ]
  it.each(rows)("%s", (_what, error, expected) => {
    expect(isDatabaseUnavailable(error)).toBe(expected)
  })
})
