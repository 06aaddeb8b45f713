import { describe, expect, it } from "vitest"
import {
  afterAttempt,
  type BreakerState,
  CLOSED,
  COOL_DOWN_RETRY_BASES,
  coolDownMs,
  FAILURES_TO_OPEN,
  MAX_COOL_DOWN_RETRY_BASES,
  roomFor
} from "../../control/webhooks/breaker.ts"
import { type Candidate, ENDPOINT_CAP, pickFairly, WORKSPACE_CAP } from "../../control/webhooks/fairClaim.ts"

const BASE = 5_000
const at = (ms: number) => new Date(1_000_000 + ms)

describe("webhook endpoint breaker", () => {
  it("opens after FAILURES_TO_OPEN failed attempts in a row, for COOL_DOWN_RETRY_BASES retry bases", () => {
    let state = CLOSED
    for (let i = 1; i < FAILURES_TO_OPEN; i++) {
      state = afterAttempt(state, false, at(i), BASE)
      expect(state).toEqual({ failures: i, opens: 0, openUntil: null })
      expect(roomFor(state, at(i), 0, ENDPOINT_CAP)).toBe(ENDPOINT_CAP)
    }
    state = afterAttempt(state, false, at(100), BASE)
    expect(state).toEqual({ failures: FAILURES_TO_OPEN, opens: 1, openUntil: at(100 + COOL_DOWN_RETRY_BASES * BASE) })
    expect(COOL_DOWN_RETRY_BASES * BASE).toBe(30_000)
  })

  it("a success in between starts the count over", () => {
    let state = CLOSED
    for (let i = 0; i < FAILURES_TO_OPEN - 1; i++) state = afterAttempt(state, false, at(i), BASE)
    state = afterAttempt(state, true, at(10), BASE)
    expect(state).toEqual(CLOSED)
    state = afterAttempt(state, false, at(11), BASE)
    expect(state.openUntil).toBeNull()
  })

  it("claims nothing while open, one probe once the cool-down is over, and no second one while it is out", () => {
    const open: BreakerState = { failures: 5, opens: 1, openUntil: at(30_000) }
    expect(roomFor(open, at(29_999), 0, ENDPOINT_CAP)).toBe(0)
    expect(roomFor(open, at(30_000), 0, ENDPOINT_CAP)).toBe(1)
    expect(roomFor(open, at(30_000), 1, ENDPOINT_CAP)).toBe(0)
    expect(roomFor(CLOSED, at(0), 3, ENDPOINT_CAP)).toBe(1)
    expect(roomFor(CLOSED, at(0), ENDPOINT_CAP, ENDPOINT_CAP)).toBe(0)
  })

  it("a send that started before it opened and fails while open changes nothing but the count", () => {
    const open: BreakerState = { failures: 5, opens: 1, openUntil: at(30_000) }
    expect(afterAttempt(open, false, at(1_000), BASE)).toEqual({ ...open, failures: 6 })
  })

  it("a failed probe opens it again for twice as long, up to MAX_COOL_DOWN_RETRY_BASES; a good one closes it", () => {
    let state: BreakerState = { failures: 5, opens: 1, openUntil: at(0) }
    const coolDowns: Array<number> = []
    let now = 0
    for (let i = 0; i < 8; i++) {
      now = state.openUntil!.getTime() - at(0).getTime()
      state = afterAttempt(state, false, at(now), BASE)
      coolDowns.push(state.openUntil!.getTime() - at(now).getTime())
    }
    expect(coolDowns.map((ms) => ms / BASE)).toEqual([12, 24, 48, 96, 120, 120, 120, 120])
    expect(MAX_COOL_DOWN_RETRY_BASES * BASE).toBe(600_000)
    expect(afterAttempt(state, true, state.openUntil!, BASE)).toEqual(CLOSED)
  })

  it("scales with the retry base", () => {
    expect([1, 2, 3].map((opens) => coolDownMs(opens, 200))).toEqual([1_200, 2_400, 4_800])
    expect(coolDownMs(30, 200)).toBe(24_000)
  })
})

describe("fair claim of due deliveries", () => {
  let next = 0
  /** `count` due deliveries of one endpoint, ids increasing from wherever the last call stopped. */
  const due = (workspaceId: string, webhookId: string, count: number): Array<Candidate> =>
    Array.from({ length: count }, () => ({ id: String(++next), webhookId, workspaceId }))
  const limits = (endpoints: ReadonlyArray<string>, slots: number, over: {
    endpointInFlight?: Record<string, number>
    workspaceInFlight?: Record<string, number>
    endpointRoom?: Record<string, number>
  } = {}) => ({
    endpointRoom: new Map(endpoints.map((id) => [id, over.endpointRoom?.[id] ?? ENDPOINT_CAP - (over.endpointInFlight?.[id] ?? 0)])),
    endpointInFlight: new Map(Object.entries(over.endpointInFlight ?? {})),
    workspaceInFlight: new Map(Object.entries(over.workspaceInFlight ?? {})),
    workspaceCap: WORKSPACE_CAP,
    slots
  })
  const workspaceOf = (picked: ReadonlyArray<string>, candidates: ReadonlyArray<Candidate>) =>
    picked.map((id) => candidates.find((c) => c.id === id)!.workspaceId)

  it("serves a newcomer first when the others already have deliveries under way", () => {
    const hooksA = Array.from({ length: 20 }, (_, i) => `a${i}`)
    const candidates = [...hooksA.flatMap((hook) => due("A", hook, ENDPOINT_CAP)), ...due("B", "b0", 1)]
    const picked = pickFairly(candidates, limits([...hooksA, "b0"], 1, { workspaceInFlight: { A: 8 } }))
    expect(workspaceOf(picked, candidates)).toEqual(["B"])
  })

  it("takes turns between workspaces, oldest first, whatever their backlog", () => {
    const candidates = [...due("A", "a0", 4), ...due("A", "a1", 4), ...due("B", "b0", 4), ...due("C", "c0", 1)]
    const picked = pickFairly(candidates, limits(["a0", "a1", "b0", "c0"], 7))
    expect(workspaceOf(picked, candidates)).toEqual(["A", "B", "C", "A", "B", "A", "B"])
  })

  it("takes turns between a workspace's endpoints, and takes each endpoint's deliveries oldest first", () => {
    const candidates = [...due("A", "a0", 4), ...due("A", "a1", 2)]
    const picked = pickFairly(candidates, limits(["a0", "a1"], 6))
    expect(picked.map((id) => candidates.find((c) => c.id === id)!.webhookId)).toEqual(["a0", "a1", "a0", "a1", "a0", "a0"])
    expect(picked.filter((id) => candidates.find((c) => c.id === id)!.webhookId === "a0")).toEqual(
      candidates.filter((c) => c.webhookId === "a0").map((c) => c.id)
    )
  })

  it("keeps to the endpoint cap, counting what is already under way", () => {
    const candidates = due("A", "a0", 10)
    expect(pickFairly(candidates, limits(["a0"], 64))).toHaveLength(ENDPOINT_CAP)
    expect(pickFairly(candidates, limits(["a0"], 64, { endpointInFlight: { a0: 3 }, workspaceInFlight: { A: 3 } }))).toHaveLength(1)
    expect(pickFairly(candidates, limits(["a0"], 64, { endpointRoom: { a0: 0 } }))).toHaveLength(0)
  })

  it("keeps to the workspace cap across its endpoints", () => {
    const hooks = Array.from({ length: 20 }, (_, i) => `a${i}`)
    const candidates = hooks.flatMap((hook) => due("A", hook, ENDPOINT_CAP))
    expect(pickFairly(candidates, limits(hooks, 64))).toHaveLength(WORKSPACE_CAP)
    expect(pickFairly(candidates, limits(hooks, 64, { workspaceInFlight: { A: WORKSPACE_CAP - 2 } }))).toHaveLength(2)
    expect(pickFairly(candidates, limits(hooks, 64, { workspaceInFlight: { A: WORKSPACE_CAP } }))).toHaveLength(0)
  })

  it("fills no more than the free slots, and nothing from nothing", () => {
    const candidates = [...due("A", "a0", 4), ...due("B", "b0", 4)]
    expect(pickFairly(candidates, limits(["a0", "b0"], 3))).toHaveLength(3)
    expect(pickFairly(candidates, limits(["a0", "b0"], 0))).toHaveLength(0)
    expect(pickFairly([], limits([], 64))).toEqual([])
  })

  it("orders ids as numbers (bigserial as text)", () => {
    const candidates: Array<Candidate> = [
      { id: "10", webhookId: "a0", workspaceId: "A" },
      { id: "9", webhookId: "b0", workspaceId: "B" }
    ]
    expect(pickFairly(candidates, limits(["a0", "b0"], 1))).toEqual(["9"])
  })
})
