import { readdir } from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { useClicksBucketDeployment } from "../support/clicksBucketDeployment.ts"
import { namingProblems, valueOf } from "../support/prometheusRules.ts"
import { apiClient, eventually } from "../support/processes.ts"

/**
 * Scale-out with no shared path (#25): two controls and three engines, each with a directory of
 * its own, on PostgreSQL and a three-node NATS cluster with JetStream; the click files travel
 * through a replicated object store (RICOCHET_CLICKS_TRANSPORT=bucket). After visits through
 * every engine both controls count every click once within seconds, and link.clicked goes out
 * once per click. The faults (a node killed, the whole cluster down, an engine killed, a late
 * control, compaction meanwhile) are in test/faults/clicksBucket.test.ts, on the same deployment.
 */
describe("clicks through a JetStream object store, nothing shared on disk", () => {
  const deployment = useClicksBucketDeployment()
  const { controls, engines, linkOnEveryEngine, everyControlCounts, engineStatus, visitAll } = deployment

  it("counts every click through every engine once on both controls, within seconds of the last visit", async () => {
    const link = await linkOnEveryEngine("everywhere")
    const answered = await visitAll(link, "everywhere", 20)
    expect(answered).toBe(60)
    const lastVisit = Date.now()
    await everyControlCounts(link, answered, 30_000, controls, 500)
    const seconds = (Date.now() - lastVisit) / 1000
    console.log(`click bucket: both controls counted ${answered} clicks ${seconds.toFixed(1)} s after the last visit`)
    // The goal is 5 s (measured 1.1–1.9 s with this file alone); beside the rest of the suite on two
    // shared cores a roll, an upload, a mirror download and a query each wait their turn (8.2 s seen),
    // so the bound here is what tells "seconds" from "stuck", not the goal itself.
    expect(seconds).toBeLessThan(15)
    // Nothing is shared: each control has the files in its own directory, the engines keep none.
    for (const name of ["control-1", "control-2"]) {
      expect((await readdir(path.join(deployment.root, name, "clicks"), { recursive: true })).some((f) => f.endsWith(".parquet"))).toBe(true)
    }
    for (const engine of engines) expect((await engineStatus(engine)).clicksOutbox.files).toBe(0)
    // Each control's /metrics says its mirror follows the bucket, and what it brought in (reported once a second).
    for (const control of controls) {
      const metrics = async () => (await fetch(`http://127.0.0.1:${control.env.RICOCHET_CONTROL_ADMIN_PORT}/metrics`)).text()
      await eventually(async () => (valueOf(await metrics(), "ricochet_control_click_mirror_files_total", { change: "downloaded" }) ?? 0) >= engines.length, 5_000, 200)
      const text = await metrics()
      expect(valueOf(text, "ricochet_control_click_mirror_following")).toBe(1)
      expect(namingProblems(text)).toEqual([])
    }
  }, 120_000)

  it("sends link.clicked for every click once, from the mirrored files, whichever control sends it", async () => {
    const link = await linkOnEveryEngine("hooked")
    const receiver = deployment.receiver
    const api = apiClient(controls[1]!.baseUrl, link.key)
    const hook = await api.post("/v1/webhooks", { url: receiver.url("/hooked"), events: ["link.clicked"], linkId: link.linkId })
    expect(hook.status, JSON.stringify(hook.body)).toBe(201)
    const answered = await visitAll(link, "hooked", 5)
    const delivered = () =>
      receiver.received.filter((r) => r.path === "/hooked").flatMap((r) => (JSON.parse(r.body) as { data: { clicks: Array<unknown> } }).data.clicks).length
    await eventually(async () => delivered() >= answered, 30_000, 100)
    // Files each control mirrors are claimed once between them: no click is sent twice.
    await new Promise((resolve) => setTimeout(resolve, 3_000))
    expect(delivered()).toBe(answered)
  }, 120_000)
})
