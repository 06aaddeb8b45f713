import { mkdir, readdir, rename, rm } from "node:fs/promises"
import { cpus, loadavg, tmpdir } from "node:os"
import * as path from "node:path"
import { performance } from "node:perf_hooks"
import { startMirror } from "../../control/analytics/ClickMirrorJob.ts"
import { SegmentUploader } from "../../engine/clicks/segmentUploader.ts"
import { SpoolSink } from "../../engine/clicks/spoolSink.ts"
import type { ClickRecord } from "../../shared/clicks/click.ts"
import { clickBucketConnection } from "../../shared/clicks/clickBucket.ts"
import { listClickFiles } from "../../shared/clicks/files.ts"
import { openDuckDb } from "../../shared/clicks/parquet.ts"
import { startNatsCluster } from "../../test/support/natsCluster.ts"
import { clickRecordPool, countParquet, cutBatch, syntheticLinks } from "../lib/ingestRecords.ts"
import { Scope, startNats } from "../lib/processes.ts"
import type { ScenarioResult } from "../lib/result.ts"

export const description =
  "Click files through the click bucket (RICOCHET_CLICKS_TRANSPORT=bucket: outbox, JetStream object store R3 on a three-node NATS cluster, a control's mirror): clicks/s the bucket carries, and clicks/s end to end; baseline: the same sink writing into the control's directory (the directory transport)"

const num = (name: string, fallback: number) => {
  const value = Number(process.env[name])
  return Number.isFinite(value) && value > 0 ? value : fallback
}

/** Seconds each transport is fed for. */
const DURATION_S = num("BENCH_DURATION", 10)
/** As click-ingest: batches of 2,000, the engine's fsync and roll defaults, bounded in flight. */
const BATCH = 2_000
const FSYNC_MS = num("RICOCHET_SPOOL_FSYNC_MS", 100)
const ROLL_MS = num("RICOCHET_ROLL_SECONDS", 2) * 1000
const MAX_IN_FLIGHT = 100_000
/** NATS nodes and the bucket's replicas (the deployment: R3 on three nodes). */
const REPLICAS = Math.floor(num("BENCH_CLICKS_REPLICAS", 3))
/** The outbox budget, as RICOCHET_CLICKS_OUTBOX_MB's default. */
const OUTBOX_BYTES = 1024 * 1024 * 1024
/** The goal: the bucket carries at least 0.9× what the directory takes. */
const GOAL_RATIO = 0.9
/** A drain that takes longer than this is reported as not arrived. */
const DRAIN_LIMIT_MS = 120_000

const round = (n: number, digits = 0) => Number(n.toFixed(digits))
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
const tick = () => new Promise<void>((resolve) => setImmediate(resolve))
const WARM_MS = Math.min(1000, (DURATION_S * 1000) / 4)

/**
 * Feeds the sink batches flat out for DURATION_S (at most MAX_IN_FLIGHT unacknowledged), then
 * closes it (the last roll). Returns the steady acknowledged rate and when the load ended.
 */
const feed = async (sink: SpoolSink, pool: ReadonlyArray<ClickRecord>, start: number) => {
  let seq = 0
  let inFlight = 0
  let acknowledged = 0
  let failed = 0
  let steady = 0
  let wake: (() => void) | undefined
  const deadline = start + DURATION_S * 1000
  while (performance.now() < deadline) {
    if (inFlight >= MAX_IN_FLIGHT) {
      await new Promise<void>((resolve) => (wake = resolve))
      continue
    }
    const batch = cutBatch(pool, seq, BATCH, Date.now())
    seq += BATCH
    inFlight += BATCH
    sink.write(batch).then(
      () => {
        acknowledged += BATCH
        if (performance.now() >= start + WARM_MS && performance.now() <= deadline) steady += BATCH
        inFlight -= BATCH
        wake?.()
      },
      () => {
        failed += BATCH
        inFlight -= BATCH
        wake?.()
      }
    )
    await tick()
  }
  const loadEnd = performance.now()
  while (inFlight > 0) await new Promise<void>((resolve) => (wake = resolve))
  await sink.close()
  return { offered: seq, acknowledged, failed, ackPerS: steady / ((loadEnd - start - WARM_MS) / 1000), loadEnd, closed: performance.now() }
}

const singleNats = async (jetStreamDir: string) => {
  const server = await startNats(undefined, { jetStreamDir })
  return { urls: [server.url], stopAll: () => server.stop() }
}

/**
 * One bucket transport: an engine's outbox and uploader, the bucket, a control's mirror (each
 * side with its own connection, to different nodes), as RICOCHET_CLICKS_TRANSPORT=bucket wires them.
 */
const bucketTransport = async (scope: Scope, dir: string, urls: ReadonlyArray<string>, name: string) => {
  const bucket = `bench-clicks-${name}-${process.pid}`
  const engineSide = clickBucketConnection({ natsUrl: urls[0]!, bucket, replicas: REPLICAS }, `bench engine ${name}`)
  const controlSide = clickBucketConnection({ natsUrl: urls[Math.min(1, urls.length - 1)]!, bucket, replicas: REPLICAS }, `bench control ${name}`)
  scope.defer(`close NATS connections ${name}`, async () => {
    await engineSide.close()
    await controlSide.close()
  })
  await engineSide.bucket()
  const outboxDir = path.join(dir, name, "outbox")
  const mirrorDir = path.join(dir, name, "control", "clicks")
  await mkdir(outboxDir, { recursive: true })
  const uploader = SegmentUploader.start({ outboxDir, connection: engineSide, budgetBytes: OUTBOX_BYTES, scanMs: Math.min(1_000, ROLL_MS) })
  scope.defer(`stop uploader ${name}`, () => uploader.close())
  const mirror = startMirror(controlSide, mirrorDir)
  scope.defer(`stop mirror ${name}`, () => mirror.stop())
  /** When every file is out of the outbox (none left on its disk) and the mirror has applied as many objects as were put. */
  const times = { allPut: Number.NaN }
  const arrived = async (): Promise<number | undefined> => {
    uploader.kick()
    const deadline = performance.now() + DRAIN_LIMIT_MS
    while (performance.now() < deadline) {
      const waiting = (await readdir(outboxDir, { recursive: true })).filter((entry) => entry.endsWith(".parquet")).length
      if (waiting === 0 && Number.isNaN(times.allPut)) times.allPut = performance.now()
      if (waiting === 0 && uploader.counts.uploaded > 0 && mirror.state.downloads >= uploader.counts.uploaded) return performance.now()
      await sleep(20)
    }
    return undefined
  }
  return { outboxDir, mirrorDir, uploader, mirror, arrived, times }
}

export default async function run(): Promise<ScenarioResult> {
  const base = process.env.BENCH_DIR ?? tmpdir()
  await mkdir(base, { recursive: true })
  const dir = path.join(base, `ricochet-bench-bucket-${process.pid}-${Date.now()}`)
  const scope = new Scope()
  const loadBefore = loadavg()
  try {
    await mkdir(dir, { recursive: true })
    scope.defer("remove bench dir", () => rm(dir, { recursive: true, force: true }))
    const writer = await openDuckDb(1)
    const reader = await openDuckDb(2)
    scope.defer("close DuckDB", () => {
      writer.closeSync()
      reader.closeSync()
    })
    const pool = clickRecordPool(50_000, syntheticLinks(10_000))
    // A "cluster" of one node never elects a JetStream leader: R1 runs on a plain server.
    const nats = REPLICAS > 1 ? await startNatsCluster(path.join(dir, "nats"), REPLICAS) : await singleNats(path.join(dir, "nats"))
    scope.defer("stop NATS", () => nats.stopAll())

    // 1. The directory transport: the sink rolls into the directory a control reads.
    const directoryDir = path.join(dir, "directory", "clicks")
    const dirSink = await SpoolSink.open({ spoolDir: path.join(dir, "directory", "spool"), clicksDir: directoryDir, engineId: "bench", fsyncMs: FSYNC_MS, rollMs: ROLL_MS, duck: writer })
    const dirStart = performance.now()
    const direct = await feed(dirSink, pool, dirStart)
    const directParquet = await countParquet(reader, directoryDir)
    const directPerS = direct.acknowledged / ((direct.closed - dirStart) / 1000)

    // 2. What the bucket carries: the files that run made, moved into an outbox at once, put,
    // and mirrored. Clicks/s carried against the rate the sink made them: can the bucket keep up
    // with one engine's Parquet?
    const carry = await bucketTransport(scope, dir, nats.urls, "carry")
    const made = await listClickFiles(directoryDir, 0, Date.now() + 86_400_000)
    const carryStart = performance.now()
    for (const file of made) {
      const target = path.join(carry.outboxDir, path.relative(directoryDir, file))
      await mkdir(path.dirname(target), { recursive: true })
      await rename(file, target)
    }
    const carried = await carry.arrived()
    const carriedParquet = await countParquet(reader, carry.mirrorDir)
    const carriedPerS = carried === undefined ? 0 : carriedParquet.rows / ((carried - carryStart) / 1000)
    await rm(path.join(dir, "directory"), { recursive: true, force: true })

    // 3. The bucket transport end to end: the sink rolls into an outbox while the uploader puts
    // each file into the bucket (in the engine, its click writer thread) and a control's mirror
    // downloads it, all at once.
    const live = await bucketTransport(scope, dir, nats.urls, "live")
    let maxOutbox = { files: 0, bytes: 0 }
    const sampler = setInterval(() => {
      if (live.uploader.counts.bytes > maxOutbox.bytes) maxOutbox = { files: live.uploader.counts.files, bytes: live.uploader.counts.bytes }
    }, 50)
    scope.defer("stop sampler", () => clearInterval(sampler))
    const bucketSink = await SpoolSink.open({
      spoolDir: path.join(dir, "live", "spool"),
      clicksDir: live.outboxDir,
      engineId: "bench",
      fsyncMs: FSYNC_MS,
      rollMs: ROLL_MS,
      duck: writer,
      refuse: () => live.uploader.full(),
      onRolled: () => live.uploader.kick()
    })
    const bucketStart = performance.now()
    const viaBucket = await feed(bucketSink, pool, bucketStart)
    const arrived = await live.arrived()
    clearInterval(sampler)
    const mirrorParquet = await countParquet(reader, live.mirrorDir)
    const bucketPerS = arrived === undefined ? 0 : viaBucket.acknowledged / ((arrived - bucketStart) / 1000)
    const loadAfter = loadavg()

    const lossless = (run: typeof direct, parquet: Awaited<ReturnType<typeof countParquet>>) =>
      run.failed === 0 && run.acknowledged === run.offered && parquet.rows === run.acknowledged && parquet.distinct === run.acknowledged
    const carryRatio = directPerS === 0 ? 0 : carriedPerS / directPerS
    const endToEndRatio = directPerS === 0 ? 0 : bucketPerS / directPerS
    const load = (l: ReadonlyArray<number>) => l.map((n) => n.toFixed(1)).join(" / ")

    return {
      figures: {
        "clicks/s the bucket carries (a flat-out run's files put and mirrored)": round(carriedPerS),
        "MB/s the bucket carries": carried === undefined ? 0 : round(carriedParquet.bytes / 2 ** 20 / ((carried - carryStart) / 1000), 1),
        "carried: s until every file was put / until every file was in the mirror": `${round((carry.times.allPut - carryStart) / 1000, 2)} / ${carried === undefined ? "n/a" : round((carried - carryStart) / 1000, 2)}`,
        "clicks/s first acknowledged → all in the control's directory, bucket transport end to end": round(bucketPerS),
        "clicks/s acknowledged, flat out, bucket transport end to end": round(viaBucket.ackPerS),
        "drain after the end-to-end load (last roll, uploads, mirror) s": arrived === undefined ? `not arrived in ${DRAIN_LIMIT_MS / 1000} s` : round((arrived - viaBucket.loadEnd) / 1000, 2),
        "files put / mirrored (carried; end to end)": `${carry.uploader.counts.uploaded} / ${carry.mirror.state.downloads}; ${live.uploader.counts.uploaded} / ${live.mirror.state.downloads}`,
        "most waiting in the outbox, end to end (files, MB)": `${maxOutbox.files}, ${round(maxOutbox.bytes / 2 ** 20, 1)}`,
        "clicks / rows / distinct rows in the mirror (carried)": `${direct.acknowledged} / ${carriedParquet.rows} / ${carriedParquet.distinct}`,
        "clicks acknowledged / rows / distinct rows in the mirror (end to end)": `${viaBucket.acknowledged} / ${mirrorParquet.rows} / ${mirrorParquet.distinct}`
      },
      baseline: {
        "clicks/s first acknowledged → all in the control's directory, directory transport": round(directPerS),
        "clicks/s acknowledged, flat out, directory transport": round(direct.ackPerS),
        "clicks acknowledged / rows / distinct rows in the directory": `${direct.acknowledged} / ${directParquet.rows} / ${directParquet.distinct}`
      },
      ratios: {
        "bucket carries vs directory transport's clicks/s into the directory": round(carryRatio, 3),
        "bucket end to end vs directory, clicks/s into the control's directory": round(endToEndRatio, 3),
        "bucket end to end vs directory, clicks/s acknowledged": round(direct.ackPerS === 0 ? 0 : viaBucket.ackPerS / direct.ackPerS, 3)
      },
      goals: [
        { goal: `the bucket carries ≥ ${GOAL_RATIO}× the clicks/s one engine puts into Parquet (directory transport, flat out)`, value: round(carryRatio, 3), met: carryRatio >= GOAL_RATIO },
        {
          goal: `end to end on one machine (sink, uploader, mirror and three NATS nodes on the same cores): ≥ ${GOAL_RATIO}× the directory transport`,
          value: round(endToEndRatio, 3),
          met: endToEndRatio >= GOAL_RATIO
        },
        {
          goal: "zero loss: rows = distinct rows = acknowledged = offered, in the directory and in both mirrors",
          value: `${directParquet.rows}/${directParquet.distinct}/${direct.acknowledged}; carried ${carriedParquet.rows}/${carriedParquet.distinct}; ${mirrorParquet.rows}/${mirrorParquet.distinct}/${viaBucket.acknowledged}`,
          met: lossless(direct, directParquet) && carriedParquet.rows === direct.acknowledged && carriedParquet.distinct === direct.acknowledged &&
            lossless(viaBucket, mirrorParquet)
        }
      ],
      notes: [
        `Load average (1 / 5 / 15 min) before: ${load(loadBefore)}, after: ${load(loadAfter)}, on a ${cpus().length}-core machine shared with other work: every phase ran under it, one after the other.`,
        `In-process, as click-ingest: a SpoolSink (fsyncMs ${FSYNC_MS}, roll every ${ROLL_MS} ms, DuckDB with 1 thread) fed synthetic ClickRecords in batches of ${BATCH} flat out for ${DURATION_S} s (at most ${MAX_IN_FLIGHT} unacknowledged), then closed (the last roll). The bucket is a JetStream object store, R${REPLICAS} on a ${REPLICAS}-node nats-server cluster on loopback (BENCH_CLICKS_REPLICAS), the engine's SegmentUploader putting into it and a control's mirror (startMirror, its own connection to another node) downloading each file, digest checked, into its own directory.`,
        "Directory transport (the baseline): the sink rolls into the directory a control reads; clicks acknowledged over the time from the first click to the last file in place. Carried: that run's files moved into an outbox at once; their clicks over the time until the last is in the mirror. End to end: the sink rolls into an outbox while the uploader and the mirror run; clicks acknowledged over the time from the first click to the last file in the mirror.",
        "The end-to-end figure is pessimistic for the bucket: the sink, the uploader and the mirror share this process's event loop, and the three NATS nodes the two cores (in an installation the uploader runs in the engine's click writer thread, the mirror in a control on another machine, each NATS node on its own); its acknowledged rate falls with the CPU the others take, not with the transport, whose drain after the load is the last figure that depends on it.",
        "Zero loss is counted back with DuckDB from the Parquet files of the control's directory (the mirror) against the clicks acknowledged; distinct visitor hashes prove no click is there twice."
      ]
    }
  } finally {
    await scope.close()
  }
}
