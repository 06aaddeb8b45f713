import { describe, expect, it } from "vitest"
import { FairQueue } from "../../control/links/qr/fairQueue.ts"

/** Offers `items` as "tenant:item" in order; what each offer answered. */
const offerAll = (queue: FairQueue<string>, items: ReadonlyArray<string>) =>
  items.map((entry) => {
    const [tenant] = entry.split(":")
    return queue.offer(tenant, entry)
  })

const drain = (queue: FairQueue<string>) => {
  const taken: Array<string> = []
  for (let next = queue.take(); next !== undefined; next = queue.take()) taken.push(next.item)
  return taken
}

describe("FairQueue", () => {
  it.each<readonly [string, ReadonlyArray<string>, ReadonlyArray<string>]>([
    ["one tenant: its own order", ["a:1", "a:2", "a:3"], ["a:1", "a:2", "a:3"]],
    ["a backlog does not hold a later tenant behind it", ["a:1", "a:2", "a:3", "a:4", "b:1"], ["a:1", "b:1", "a:2", "a:3", "a:4"]],
    ["turns rotate across every tenant waiting", ["a:1", "a:2", "a:3", "b:1", "c:1", "c:2"], ["a:1", "b:1", "c:1", "a:2", "c:2", "a:3"]]
  ])("%s", (_name, offered, taken) => {
    const queue = new FairQueue<string>(100, 100)
    expect(offerAll(queue, offered)).toEqual(offered.map(() => "queued"))
    expect(drain(queue)).toEqual(taken)
    expect(queue.waiting).toBe(0)
  })

  it("a tenant that comes back after its turn ran out waits behind those already waiting", () => {
    const queue = new FairQueue<string>(100, 100)
    offerAll(queue, ["a:1", "b:1", "b:2"])
    expect(queue.take()?.item).toBe("a:1")
    offerAll(queue, ["a:2"])
    expect(drain(queue)).toEqual(["b:1", "a:2", "b:2"])
  })

  it("holds at most `capacity` waiting in all", () => {
    const queue = new FairQueue<string>(3, 10)
    expect(offerAll(queue, ["a:1", "b:1", "c:1", "d:1"])).toEqual(["queued", "queued", "queued", "full"])
    queue.take()
    expect(queue.offer("d", "d:1")).toBe("queued")
  })

  it("holds at most `perTenant` of one tenant, waiting or taken until released; the others still get in", () => {
    const queue = new FairQueue<string>(10, 2)
    expect(offerAll(queue, ["a:1", "a:2", "a:3", "b:1"])).toEqual(["queued", "queued", "tenantFull", "queued"])
    expect(queue.take()?.item).toBe("a:1")
    // Taken is still held: a's share is used until the item is released.
    expect(queue.offer("a", "a:3")).toBe("tenantFull")
    expect(queue.held("a")).toBe(2)
    queue.release("a")
    expect(queue.offer("a", "a:3")).toBe("queued")
  })

  it("refuses a full tenant before looking at the whole", () => {
    const queue = new FairQueue<string>(2, 2)
    offerAll(queue, ["a:1", "a:2"])
    expect(queue.offer("a", "a:3")).toBe("tenantFull")
    expect(queue.offer("b", "b:1")).toBe("full")
  })

  it("withdraws a waiting item, freeing its place and its tenant's share; the tenant keeps its turn for the next", () => {
    const queue = new FairQueue<string>(3, 2)
    offerAll(queue, ["a:1", "b:1", "a:2"])
    expect(queue.remove("a", "a:1")).toBe(true)
    expect(queue.remove("a", "a:1")).toBe(false)
    expect(queue.waiting).toBe(2)
    expect(queue.held("a")).toBe(1)
    expect(drain(queue)).toEqual(["a:2", "b:1"])
  })

  it("does not withdraw an item already taken", () => {
    const queue = new FairQueue<string>(3, 2)
    offerAll(queue, ["a:1"])
    queue.take()
    expect(queue.remove("a", "a:1")).toBe(false)
    expect(queue.held("a")).toBe(1)
  })

  it("drops a tenant from the turns when its last waiting item is withdrawn", () => {
    const queue = new FairQueue<string>(10, 10)
    offerAll(queue, ["a:1", "b:1", "c:1"])
    queue.remove("b", "b:1")
    offerAll(queue, ["b:2"])
    expect(drain(queue)).toEqual(["a:1", "c:1", "b:2"])
  })
})
