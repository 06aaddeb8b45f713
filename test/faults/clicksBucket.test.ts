import { readdir } from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { useClicksBucketDeployment } from "../support/clicksBucketDeployment.ts"
import { startControl, startEngineProcess, eventually } from "../support/processes.ts"

const DAY_MS = 86_400_000
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
/** How long the whole NATS cluster stays down (issue 25: 60 s; files wait, then arrive). */
const CLUSTER_DOWN_MS = 60_000

/**
 * The faults of the click bucket transport (#25), each with exact counts afterwards, on the
 * deployment of test/e2e/clicksBucket.test.ts (two controls, three engines with private
 * directories, a three-node NATS cluster, an R3 bucket, compaction every second): a NATS node
 * killed and restarted during the visits; compaction of a past day through the bucket, and again
 * while a node is killed and restarted; a control started afterwards catching up from the bucket
 * alone; an engine killed with SIGKILL; the whole cluster down for 60 s.
 */
describe("clicks through a JetStream object store, under faults", () => {
  const deployment = useClicksBucketDeployment()
  const { controls, engines, linkOnEveryEngine, everyControlCounts, engineStatus, visitAll, pastDayFiles, clicksOnDay, dayFileOf } = deployment
  const controlNames = () => controls.map((_, i) => `control-${i + 1}`)

  it("counts every click once with a NATS node killed and restarted during the visits", async () => {
    const nats = deployment.nats
    const link = await linkOnEveryEngine("node-down")
    let answered = await visitAll(link, "node-down", 10)
    // The node the first control and engine were told of; the R3 bucket keeps a quorum on the other two.
    await nats.replicasCurrent(deployment.stream)
    await nats.stop(0, "SIGKILL")
    answered += await visitAll(link, "node-down", 10)
    await sleep(2_000)
    answered += await visitAll(link, "node-down", 10)
    nats.start(0)
    answered += await visitAll(link, "node-down", 10)
    expect(answered).toBe(120)
    await nats.ready()
    await everyControlCounts(link, answered, 60_000)
  }, 180_000)

  it("compacts a past day once, through the bucket, with every click counted once on both controls", async () => {
    const link = await linkOnEveryEngine("history")
    const day = new Date(Date.now() - 3 * DAY_MS).toISOString().slice(0, 10)
    const planted = await pastDayFiles("edge-2", link, day, { hours: ["03", "17"], filesPerHour: 2, perFile: 25, firstSeq: 1000 })
    // Merged into a day file by one control, which every control then has in place of the hours' files.
    await eventually(async () => (await dayFileOf("control-1", day)) !== undefined && (await dayFileOf("control-2", day)) === (await dayFileOf("control-1", day)), 60_000, 200)
    const merged = (await dayFileOf("control-1", day))!
    for (const name of ["control-1", "control-2"]) {
      expect((await readdir(path.join(deployment.root, name, "clicks", `date=${day}`))).includes(merged)).toBe(true)
    }
    for (const control of controls) expect(await clicksOnDay(control, link, day)).toBe(planted)
  }, 120_000)

  it("compacts a day, and late files into it again, while a NATS node is killed and restarted during the visits", async () => {
    const nats = deployment.nats
    // Two workspaces, so the day's questions and the visits' questions have an allowance each.
    const live = await linkOnEveryEngine("compact-live")
    const history = await linkOnEveryEngine("compact-history")
    const day = new Date(Date.now() - 2 * DAY_MS).toISOString().slice(0, 10)
    let answered = await visitAll(live, "compact-live", 10)
    // A past day's files to put, mirror and merge (compaction runs every second), then the node
    // the second control and engine were told of killed while that happens.
    let planted = await pastDayFiles("edge-2", history, day, { hours: ["04", "19"], filesPerHour: 2, perFile: 25, firstSeq: 2000 })
    // Every answer on the day meanwhile: never more than the clicks put (a file counted twice, or
    // an hour's files beside the day file that replaced them).
    const seen: Array<number> = []
    let sampling = true
    const sampler = (async () => {
      while (sampling) {
        const clicks = await clicksOnDay(controls[1]!, history, day).catch(() => undefined)
        if (typeof clicks === "number") seen.push(clicks)
        await sleep(6_000)
      }
    })()
    await nats.replicasCurrent(deployment.stream)
    await nats.stop(1, "SIGKILL")
    try {
      answered += await visitAll(live, "compact-live", 10)
      // Late files of an hour the day file takes: merged into the day again.
      planted += await pastDayFiles("edge-3", history, day, { hours: ["04"], filesPerHour: 2, perFile: 25, firstSeq: 2000 })
      answered += await visitAll(live, "compact-live", 10)
      await sleep(2_000)
    } finally {
      nats.start(1)
    }
    answered += await visitAll(live, "compact-live", 10)
    expect(answered).toBe(120)
    await nats.ready()
    // One day file, the same on every control, holding every click put once.
    await eventually(async () => {
      const files = await Promise.all(controlNames().map((name) => dayFileOf(name, day)))
      if (files[0] === undefined || files.some((file) => file !== files[0])) return false
      return (await clicksOnDay(controls[0]!, history, day)) === planted
    }, 60_000, 3_000)
    sampling = false
    await sampler
    for (const control of controls) expect(await clicksOnDay(control, history, day)).toBe(planted)
    expect(seen.filter((clicks) => clicks > planted)).toEqual([])
    await everyControlCounts(live, answered, 60_000)
  }, 240_000)

  it("brings a control started afterwards to the same figures from the bucket alone", async () => {
    const link = await linkOnEveryEngine("late")
    const answered = await visitAll(link, "late", 10)
    await everyControlCounts(link, answered, 30_000)
    const late = await startControl(deployment.controlEnv("control-3", 2), true)
    controls.push(late)
    await everyControlCounts(link, answered, 30_000, [late])
  }, 180_000)

  it("loses no acknowledged click of an engine killed with SIGKILL", async () => {
    const link = await linkOnEveryEngine("killed")
    const victim = engines[0]!
    const before = (await engineStatus(victim)).sink.acknowledged
    const answered = await visitAll(link, "killed", 40, [victim])
    // Acknowledged (fsynced to the spool), then killed before or while they roll and go out.
    await eventually(async () => (await engineStatus(victim)).sink.acknowledged >= before + answered, 10_000, 20)
    victim.child.kill("SIGKILL")
    await victim.exited
    // Its own id and directories again (on ports of its own: startEngineProcess picks them).
    const { RICOCHET_ENGINE_PORT: _port, RICOCHET_ENGINE_ADMIN_PORT: _admin, ...env } = victim.env
    engines[0] = await startEngineProcess(env)
    await everyControlCounts(link, answered, 60_000)
  }, 180_000)

  it("keeps the files while the whole NATS cluster is down for 60 s, and sends them when it is back", async () => {
    const nats = deployment.nats
    const link = await linkOnEveryEngine("outage")
    const down = Date.now()
    await nats.stopAll()
    try {
      const answered = await visitAll(link, "outage", 10)
      expect(answered).toBe(30)
      // Rolled into Parquet, and waiting on each engine's disk.
      await eventually(async () => (await Promise.all(engines.map(engineStatus))).every((s) => s.clicksOutbox.files > 0), 20_000, 200)
      await sleep(Math.max(0, down + CLUSTER_DOWN_MS - Date.now()))
      // A minute on: every file still waits, and no control has a click of them.
      for (const engine of engines) expect((await engineStatus(engine)).clicksOutbox.files).toBeGreaterThan(0)
      for (const control of controls) expect(await deployment.clicksOn(control, link)).toBe(0)
      await nats.startAll()
      console.log(`click bucket: NATS cluster down ${((Date.now() - down) / 1000).toFixed(0)} s`)
      await everyControlCounts(link, answered, 90_000)
      for (const engine of engines) await eventually(async () => (await engineStatus(engine)).clicksOutbox.files === 0, 30_000, 200)
    } finally {
      await nats.startAll()
    }
  }, 300_000)
})
