import { describe, expect, it } from "vitest"
import { isApex, parseCustomHost } from "../../control/domains/host.ts"
import {
  CHALLENGE_PREFIX,
  type CheckState,
  type DnsAnswers,
  type DnsTargets,
  evaluate,
  expectedRecords,
  FAILURES_BEFORE_FAILED,
  type Lookup,
  nextState
} from "../../control/domains/verification.ts"

/** Custom hosts, their DNS records and the status machine of domain checks (pure functions). */

const SHORT = "short.test"
const TOKEN = "ricochet-verify=abc123"
const CNAME_TARGET = "cname.ricochet.test"
const A_TARGET = "203.0.113.7"
const TARGETS: DnsTargets = { cnameTarget: CNAME_TARGET, aTarget: A_TARGET }

describe("parseCustomHost", () => {
  it.each<readonly [string, string]>([
    ["go.example.com", "go.example.com"],
    ["EXAMPLE.com.", "example.com"],
    ["Go.Example.COM", "go.example.com"],
    ["  links.example.org  ", "links.example.org"],
    ["xn--bcher-kva.example", "xn--bcher-kva.example"],
    ["example.co.uk", "example.co.uk"],
    ["a-b.c-d.example.com", "a-b.c-d.example.com"],
    [`${"a".repeat(63)}.example.com`, `${"a".repeat(63)}.example.com`],
    // Looks like the short domain but is not under it.
    ["notshort.test", "notshort.test"]
  ])("accepts %j as %j", (input, host) => {
    expect(parseCustomHost(input, SHORT)).toEqual({ host })
  })

  it.each<readonly [string, RegExp]>([
    ["https://go.example.com", /scheme/i],
    ["http://go.example.com/", /scheme/i],
    ["go.example.com/path", /path/i],
    ["go.example.com?x=1", /path/i],
    ["go.example.com:8080", /port/i],
    ["127.0.0.1", /IP address/i],
    ["[::1]", /IP address/i],
    ["::1", /IP address/i],
    ["localhost", /host name/i],
    ["foo", /host name/i],
    ["", /host name/i],
    ["-bad.example.com", /host name/i],
    ["bad-.example.com", /host name/i],
    ["go..example.com", /host name/i],
    ["go_x.example.com", /host name/i],
    ["bücher.example", /host name/i],
    [`${"a".repeat(64)}.example.com`, /host name/i],
    [`${"abcdefghi.".repeat(26)}com`, /host name/i],
    ["example.123", /digits/i],
    ["co.uk", /public suffix/i],
    ["com", /host name/i],
    ["acme.short.test", /short\.test/],
    ["short.test", /short\.test/],
    ["Deep.Acme.SHORT.test", /short\.test/]
  ])("rejects %j with a sentence", (input, problem) => {
    const result = parseCustomHost(input, SHORT)
    expect(result).not.toHaveProperty("host")
    if (!("problem" in result)) throw new Error("expected a problem")
    expect(result.problem).toMatch(problem)
    expect(result.problem).toMatch(/^[A-Z0-9a-z]/)
  })
})

describe("isApex", () => {
  it.each<readonly [string, boolean]>([
    ["example.com", true],
    ["example.co.uk", true],
    ["xn--bcher-kva.example", true],
    ["go.example.com", false],
    ["a.b.example.co.uk", false],
    ["www.example.co.uk", false]
  ])("%s → %s", (host, apex) => {
    expect(isApex(host)).toBe(apex)
  })
})

describe("expectedRecords", () => {
  const txt = (host: string) => ({ type: "TXT", name: `${CHALLENGE_PREFIX}.${host}`, value: TOKEN })

  it.each<readonly [string, string, DnsTargets, ReadonlyArray<{ type: string; name: string; value: string }>]>([
    ["subdomain host", "go.example.com", TARGETS, [txt("go.example.com"), { type: "CNAME", name: "go.example.com", value: CNAME_TARGET }]],
    ["subdomain host without an A target", "go.example.com", { cnameTarget: CNAME_TARGET, aTarget: undefined }, [
      txt("go.example.com"),
      { type: "CNAME", name: "go.example.com", value: CNAME_TARGET }
    ]],
    ["apex with an A target", "example.com", TARGETS, [txt("example.com"), { type: "A", name: "example.com", value: A_TARGET }]],
    ["apex under a two-label suffix", "example.co.uk", TARGETS, [txt("example.co.uk"), { type: "A", name: "example.co.uk", value: A_TARGET }]],
    ["apex without an A target (TXT only)", "example.com", { cnameTarget: CNAME_TARGET, aTarget: undefined }, [txt("example.com")]]
  ])("%s", (_name, host, targets, records) => {
    expect(expectedRecords(host, TOKEN, targets)).toEqual(records)
  })

  it("names the challenge record _ricochet-challenge.{host}", () => {
    expect(expectedRecords("go.example.com", TOKEN, TARGETS)[0].name).toBe("_ricochet-challenge.go.example.com")
  })
})

describe("evaluate", () => {
  const ok = <T>(...values: Array<T>): Lookup<T> => ({ ok: true, values })
  const err = (code: string): Lookup<never> => ({ ok: false, code })
  const HOST = "go.example.com"
  const APEX = "example.com"
  const sub = expectedRecords(HOST, TOKEN, TARGETS)
  const apex = expectedRecords(APEX, TOKEN, TARGETS)
  const apexTxtOnly = expectedRecords(APEX, TOKEN, { cnameTarget: CNAME_TARGET, aTarget: undefined })
  const right: DnsAnswers = { txt: ok(TOKEN), cname: ok(CNAME_TARGET), a: ok("198.51.100.1"), targetA: ok("198.51.100.1") }

  type Case = readonly [
    name: string,
    records: typeof sub,
    answers: DnsAnswers,
    expected: { ok: true } | { ok: false; mentions: ReadonlyArray<string | RegExp> }
  ]

  it.each<Case>([
    ["subdomain, right records", sub, right, { ok: true }],
    ["TXT among other TXT values", sub, { ...right, txt: ok("v=spf1 -all", TOKEN) }, { ok: true }],
    ["CNAME with a trailing dot and upper case", sub, { ...right, cname: ok("CNAME.Ricochet.TEST.") }, { ok: true }],
    ["flattened CNAME (host A = target A)", sub, {
      txt: ok(TOKEN),
      cname: err("ENODATA"),
      a: ok("198.51.100.1", "198.51.100.2"),
      targetA: ok("198.51.100.2", "198.51.100.1")
    }, { ok: true }],
    ["apex with the right A", apex, { txt: ok(TOKEN), cname: err("ENODATA"), a: ok(A_TARGET), targetA: err("ENOTFOUND") }, { ok: true }],
    ["apex, TXT only", apexTxtOnly, { txt: ok(TOKEN), cname: err("ENODATA"), a: err("ENODATA"), targetA: err("ENOTFOUND") }, { ok: true }],

    ["missing TXT (NXDOMAIN)", sub, { ...right, txt: err("ENOTFOUND") }, { ok: false, mentions: [/No TXT record/, `_ricochet-challenge.${HOST}`, TOKEN] }],
    ["missing TXT (NODATA)", sub, { ...right, txt: err("ENODATA") }, { ok: false, mentions: [/No TXT record/, `_ricochet-challenge.${HOST}`] }],
    ["wrong token", sub, { ...right, txt: ok("ricochet-verify=other") }, {
      ok: false,
      mentions: [/token/, `_ricochet-challenge.${HOST}`, "ricochet-verify=other", TOKEN]
    }],
    ["missing CNAME", sub, { ...right, cname: err("ENOTFOUND"), a: err("ENOTFOUND") }, {
      ok: false,
      mentions: [/No CNAME record/, HOST, CNAME_TARGET]
    }],
    ["wrong CNAME", sub, { ...right, cname: ok("elsewhere.example.net") }, {
      ok: false,
      mentions: [/CNAME/, "elsewhere.example.net", CNAME_TARGET]
    }],
    ["host A differs from the target's A (not a flattened CNAME)", sub, {
      txt: ok(TOKEN),
      cname: err("ENODATA"),
      a: ok("192.0.2.9"),
      targetA: ok("198.51.100.1")
    }, { ok: false, mentions: [/CNAME/, HOST, CNAME_TARGET] }],
    ["host A partly differs from the target's A", sub, {
      txt: ok(TOKEN),
      cname: err("ENODATA"),
      a: ok("198.51.100.1", "192.0.2.9"),
      targetA: ok("198.51.100.1")
    }, { ok: false, mentions: [/CNAME/, HOST] }],
    ["target has no A records", sub, { txt: ok(TOKEN), cname: err("ENODATA"), a: ok("198.51.100.1"), targetA: err("ENOTFOUND") }, {
      ok: false,
      mentions: [/No CNAME record/, HOST]
    }],
    ["TXT lookup timed out", sub, { ...right, txt: err("ETIMEOUT") }, { ok: false, mentions: [/timed out/, `_ricochet-challenge.${HOST}`, /TXT/] }],
    ["CNAME lookup timed out", sub, { ...right, cname: err("ETIMEOUT"), a: err("ETIMEOUT") }, { ok: false, mentions: [/timed out/, HOST, /CNAME/] }],
    ["SERVFAIL", sub, { ...right, txt: err("ESERVFAIL") }, { ok: false, mentions: [/SERVFAIL/, /TXT/] }],
    ["apex without A", apex, { txt: ok(TOKEN), cname: err("ENODATA"), a: err("ENODATA"), targetA: err("ENOTFOUND") }, {
      ok: false,
      mentions: [/No A record/, APEX, A_TARGET]
    }],
    ["apex with a wrong A", apex, { txt: ok(TOKEN), cname: err("ENODATA"), a: ok("192.0.2.1"), targetA: err("ENOTFOUND") }, {
      ok: false,
      mentions: [/A record/, APEX, "192.0.2.1", A_TARGET]
    }],
    ["both records missing", sub, { txt: err("ENOTFOUND"), cname: err("ENOTFOUND"), a: err("ENOTFOUND"), targetA: err("ENOTFOUND") }, {
      ok: false,
      mentions: [/No TXT record/, /No CNAME record/]
    }]
  ])("%s", (_name, records, answers, expected) => {
    const result = evaluate(records, answers)
    expect(result.ok).toBe(expected.ok)
    expect(typeof result.reason).toBe("string")
    expect(result.reason.length).toBeGreaterThan(10)
    // Plain sentences (some start with the host name), no leaked objects or placeholders.
    expect(result.reason).toMatch(/^[A-Za-z0-9]/)
    expect(result.reason).not.toMatch(/\n|\{|\}/)
    expect(result.reason).not.toMatch(/undefined|null|\[object|NaN/)
    if (!expected.ok) {
      for (const mention of expected.mentions) {
        if (typeof mention === "string") expect(result.reason).toContain(mention)
        else expect(result.reason).toMatch(mention)
      }
    }
  })
})

describe("nextState", () => {
  const HOUR = 3_600_000
  const GRACE = 72 * HOUR
  const created = new Date("2024-01-01T00:00:00Z")
  const at = (hours: number) => new Date(created.getTime() + hours * HOUR)
  const pending: CheckState = { status: "pending", createdAt: created, verifiedAt: null, consecutiveFailures: 0 }
  const firstVerified = at(1)
  const verified: CheckState = { status: "verified", createdAt: created, verifiedAt: firstVerified, consecutiveFailures: 0 }

  it("pending + ok → verified, verifiedAt = now, counter 0", () => {
    const now = at(2)
    expect(nextState({ ...pending, consecutiveFailures: 4 }, true, now, GRACE)).toEqual({
      status: "verified",
      createdAt: created,
      verifiedAt: now,
      consecutiveFailures: 0
    })
  })

  it.each<readonly [string, number, "pending" | "failed"]>([
    ["just after creation", 0, "pending"],
    ["within the grace period", 71.9, "pending"],
    ["at the end of the grace period", 72, "failed"],
    ["after the grace period", 100, "failed"]
  ])("pending + fail %s → %s", (_name, hours, status) => {
    const next = nextState(pending, false, at(hours), GRACE)
    expect(next.status).toBe(status)
    expect(next.verifiedAt).toBeNull()
    expect(next.consecutiveFailures).toBe(1)
  })

  it("a fractional grace period is honoured", () => {
    const graceMs = 0.0003 * HOUR // ≈ 1 s
    expect(nextState(pending, false, new Date(created.getTime() + 500), graceMs).status).toBe("pending")
    expect(nextState(pending, false, new Date(created.getTime() + 1_500), graceMs).status).toBe("failed")
  })

  it(`verified + fail stays verified until ${FAILURES_BEFORE_FAILED} failures in a row, then failed`, () => {
    expect(FAILURES_BEFORE_FAILED).toBeGreaterThan(1)
    let state = verified
    for (let i = 1; i < FAILURES_BEFORE_FAILED; i++) {
      state = nextState(state, false, at(100 + i), GRACE)
      expect(state).toEqual({ ...verified, consecutiveFailures: i })
    }
    state = nextState(state, false, at(200), GRACE)
    expect(state.status).toBe("failed")
    expect(state.consecutiveFailures).toBe(FAILURES_BEFORE_FAILED)
    // The grace period does not apply to verified domains: even a young one needs the run of failures.
    const young: CheckState = { ...verified, verifiedAt: at(0.01) }
    expect(nextState(young, false, at(0.02), 0).status).toBe("verified")
  })

  it("verified + ok keeps its original verifiedAt and resets the counter", () => {
    const afterBlip = nextState(nextState(verified, false, at(10), GRACE), true, at(11), GRACE)
    expect(afterBlip).toEqual({ ...verified, consecutiveFailures: 0 })
    expect(nextState(verified, true, at(500), GRACE).verifiedAt).toBe(firstVerified)
  })

  it("the failure counter resets on ok, so non-consecutive failures never fail a verified domain", () => {
    let state = verified
    for (let round = 0; round < 5; round++) {
      for (let i = 1; i < FAILURES_BEFORE_FAILED; i++) state = nextState(state, false, at(10 + round), GRACE)
      expect(state.status).toBe("verified")
      state = nextState(state, true, at(10.5 + round), GRACE)
      expect(state.consecutiveFailures).toBe(0)
    }
    expect(state).toEqual(verified)
  })

  it("failed + fail stays failed", () => {
    const failed: CheckState = { status: "failed", createdAt: created, verifiedAt: null, consecutiveFailures: 5 }
    expect(nextState(failed, false, at(300), GRACE)).toEqual({ ...failed, consecutiveFailures: 6 })
  })

  it("failed + ok → verified (recovers) with a new verifiedAt", () => {
    let state = verified
    for (let i = 0; i < FAILURES_BEFORE_FAILED; i++) state = nextState(state, false, at(50 + i), GRACE)
    expect(state.status).toBe("failed")
    const now = at(60)
    expect(nextState(state, true, now, GRACE)).toEqual({ status: "verified", createdAt: created, verifiedAt: now, consecutiveFailures: 0 })
    // A pending domain that failed its grace period recovers the same way.
    const lapsed = nextState(pending, false, at(80), GRACE)
    expect(lapsed.status).toBe("failed")
    expect(nextState(lapsed, true, at(81), GRACE)).toEqual({ status: "verified", createdAt: created, verifiedAt: at(81), consecutiveFailures: 0 })
  })

  it("does not mutate its input", () => {
    const state = { ...verified }
    nextState(state, false, at(5), GRACE)
    nextState(state, true, at(5), GRACE)
    expect(state).toEqual(verified)
  })
})
