import type { DuckDBConnection } from "@duckdb/node-api"
import { mkdir, open, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { monitorEventLoopDelay, performance } from "node:perf_hooks"
import { compactClicks } from "../../control/analytics/compaction.ts"
import { ClickCollector, deriveClick } from "../../engine/clicks/collector.ts"
import { SpoolSink } from "../../engine/clicks/spoolSink.ts"
import { bundledCountryDatabase, makeGeoLookup } from "../../engine/geo/geo.ts"
import type { ClickRecord } from "../../shared/clicks/click.ts"
import { encodeClicks } from "../../shared/clicks/clickCsv.ts"
import { openDuckDb } from "../../shared/clicks/parquet.ts"
import { clickRecordPool, countParquet, cutBatch, rawClickPool, syntheticLinks } from "../lib/ingestRecords.ts"
import { Scope } from "../lib/processes.ts"
import type { ScenarioResult } from "../lib/result.ts"

export const description =
  "Clicks/s the spool sink acknowledges (fsynced) and rolls into Parquet, with zero loss counted back from the Parquet files; baseline: raw append + fdatasync of the same CSV spool bytes"

const num = (name: string, fallback: number) => {
  const value = Number(process.env[name])
  return Number.isFinite(value) && value > 0 ? value : fallback
}

/** Seconds each phase produces load for. */
const DURATION_S = num("BENCH_DURATION", 10)
/** Clicks per batch: the ClickCollector hands the sink batches of up to 2,000. */
const BATCH = Math.floor(num("BENCH_INGEST_BATCH", 2_000))
/** The engine's defaults (RICOCHET_SPOOL_FSYNC_MS, RICOCHET_ROLL_SECONDS). */
const FSYNC_MS = num("RICOCHET_SPOOL_FSYNC_MS", 100)
const ROLL_MS = num("RICOCHET_ROLL_SECONDS", 2) * 1000
/** Clicks written but not yet acknowledged before the producer waits: bounded memory. */
const MAX_IN_FLIGHT = Math.floor(num("BENCH_INGEST_IN_FLIGHT", 100_000))
const GOAL = 50_000
/** The offered rate of the paced run. */
const RATE = Math.floor(num("BENCH_INGEST_RATE", GOAL))

const round = (n: number, digits = 0) => Number(n.toFixed(digits))
/** The first part of a load that rates leave out (ramp-up). */
const WARM_MS = Math.min(1000, (DURATION_S * 1000) / 4)
/** Clicks acknowledged per second inside [start + WARM_MS, end]: the steady rate, without the tail after the load. */
const steadyRate = (acks: ReadonlyArray<readonly [time: number, clicks: number]>, start: number, end: number) => {
  let clicks = 0
  for (const [time, n] of acks) if (time >= start + WARM_MS && time <= end) clicks += n
  return clicks / ((end - start - WARM_MS) / 1000)
}
const tick = () => new Promise<void>((resolve) => setImmediate(resolve))
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
const quantile = (sorted: ReadonlyArray<number>, q: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]

/** Baseline: the same CSV spool bytes appended and fdatasync'ed one batch at a time, flat out. */
const rawDisk = async (dir: string, frames: ReadonlyArray<Buffer>, seconds: number) => {
  const handle = await open(path.join(dir, "raw.spool"), "a")
  let clicks = 0
  let bytes = 0
  let syncs = 0
  const start = performance.now()
  const deadline = start + seconds * 1000
  try {
    while (performance.now() < deadline) {
      const frame = frames[syncs % frames.length]
      await handle.appendFile(frame)
      await handle.datasync()
      clicks += BATCH
      bytes += frame.length
      syncs++
    }
  } finally {
    await handle.close()
  }
  const elapsed = (performance.now() - start) / 1000
  return { clicksPerS: clicks / elapsed, mbPerS: bytes / elapsed / 2 ** 20, fsyncMs: (elapsed * 1000) / syncs }
}

/**
 * The sink fed batches of BATCH clicks for DURATION_S: flat out (as fast as it acknowledges, at
 * most MAX_IN_FLIGHT unacknowledged) or paced at `rate` clicks/s (a batch whenever the schedule
 * is due, as a collector with that much traffic would hand them over). Roll completions are
 * sampled to get the rate at which Parquet files are produced while the load runs.
 */
const feedSink = async (dir: string, pool: ReadonlyArray<ClickRecord>, duck: DuckDBConnection, rate: number | null) => {
  const clicksDir = path.join(dir, "clicks")
  const sink = await SpoolSink.open({ spoolDir: path.join(dir, "spool"), clicksDir, engineId: "bench", fsyncMs: FSYNC_MS, rollMs: ROLL_MS, duck })
  let seq = 0
  let inFlight = 0
  let acknowledged = 0
  let failed = 0
  const acks: Array<[number, number]> = []
  let wake: (() => void) | undefined
  const latencies: Array<number> = []
  const start = performance.now()
  const deadline = start + DURATION_S * 1000
  // (time, rolled) at each roll completion seen during the load.
  const rolls: Array<[number, number]> = []
  let maxBacklog = 0
  const loopDelay = monitorEventLoopDelay({ resolution: 10 })
  loopDelay.enable()
  const sampler = setInterval(() => {
    const rolled = sink.counts.rolled
    if (rolled !== (rolls.at(-1)?.[1] ?? 0)) rolls.push([performance.now(), rolled])
    maxBacklog = Math.max(maxBacklog, sink.counts.acknowledged - rolled)
  }, 10)
  while (performance.now() < deadline) {
    if (inFlight >= MAX_IN_FLIGHT) {
      await new Promise<void>((resolve) => (wake = resolve))
      continue
    }
    if (rate !== null && seq >= ((performance.now() - start) / 1000) * rate) {
      await sleep(2)
      continue
    }
    const batch = cutBatch(pool, seq, BATCH, Date.now())
    seq += BATCH
    inFlight += BATCH
    const sent = performance.now()
    sink.write(batch).then(
      () => {
        const now = performance.now()
        acks.push([now, BATCH])
        latencies.push(now - sent)
        acknowledged += BATCH
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
  clearInterval(sampler)
  loopDelay.disable()
  const rolledAtLoadEnd = sink.counts.rolled
  const backlogAtLoadEnd = seq - rolledAtLoadEnd
  while (inFlight > 0) await new Promise<void>((resolve) => (wake = resolve))
  await sink.close()
  const end = performance.now()
  latencies.sort((a, b) => a - b)
  // Parquet output rate while loaded: clicks rolled between the first and the last roll completion.
  const [first, last] = [rolls[0], rolls.at(-1)]
  const rolledPerS = first !== undefined && last !== undefined && last[0] > first[0] ? (last[1] - first[1]) / ((last[0] - first[0]) / 1000) : Number.NaN
  return {
    clicksDir,
    offered: seq,
    acknowledged,
    failed,
    rolled: sink.counts.rolled,
    ackPerS: steadyRate(acks, start, loadEnd),
    rollsDuringLoad: rolls.length,
    rolledPerS,
    rolledAtLoadEnd,
    backlogAtLoadEnd,
    maxBacklog,
    inParquetPerS: sink.counts.rolled / ((end - start) / 1000),
    drainS: (end - loadEnd) / 1000,
    ackP50: quantile(latencies, 0.5),
    ackP99: quantile(latencies, 0.99),
    loopMaxMs: loopDelay.max / 1e6,
    loopP99Ms: loopDelay.percentile(99) / 1e6
  }
}

const rateText = (n: number) => (Number.isFinite(n) ? round(n) : "n/a (< 2 rolls completed during the load)")

/**
 * The engine's own click path without HTTP: raw clicks added one by one to a ClickCollector
 * (derive: audience, geo, device, referer, UTM, visitor hash) in front of a SpoolSink, the way
 * engine.ts wires them, producing as fast as the sink acknowledges.
 */
const collectorPath = async (dir: string, duck: DuckDBConnection) => {
  const clicksDir = path.join(dir, "clicks")
  const sink = await SpoolSink.open({ spoolDir: path.join(dir, "spool"), clicksDir, engineId: "bench", fsyncMs: FSYNC_MS, rollMs: ROLL_MS, duck })
  const geo = makeGeoLookup({ header: undefined, countryDatabase: bundledCountryDatabase(), cityDatabase: undefined })
  const collector = new ClickCollector(sink, geo, "bench-secret")
  const pool = rawClickPool(50_000, syntheticLinks(10_000))
  let added = 0
  const start = performance.now()
  const deadline = start + DURATION_S * 1000
  // The sink's acknowledged count, sampled: (time, clicks newly acknowledged).
  const acks: Array<[number, number]> = []
  let seen = 0
  const timer = setInterval(() => {
    const now = sink.counts.acknowledged
    if (now > seen) acks.push([performance.now(), now - seen])
    seen = now
  }, 5)
  const sampler = { stop: () => clearInterval(timer) }
  while (performance.now() < deadline) {
    const written = collector.counts.people + collector.counts.agent
    if (written - sink.counts.acknowledged >= MAX_IN_FLIGHT) {
      await sleep(1)
      continue
    }
    const now = Date.now()
    for (let i = 0; i < 500; i++) collector.add({ ...pool[added++ % pool.length], timestamp: now })
    await tick()
  }
  const loadEnd = performance.now()
  const ackRate = steadyRate(acks, start, loadEnd)
  await collector.flush()
  sampler.stop()
  await sink.close()
  const counted = collector.counts.people + collector.counts.agent
  // Derivation alone, on this thread (memos warm, as in a running engine).
  const deriveStart = performance.now()
  for (let i = 0; i < pool.length; i++) deriveClick(pool[i], geo, "bench-secret")
  const derivePerS = pool.length / ((performance.now() - deriveStart) / 1000)
  return { clicksDir, added, counted, bots: collector.counts.bot, acknowledged: sink.counts.acknowledged, ackPerS: ackRate, derivePerS }
}

export default async function run(): Promise<ScenarioResult> {
  const base = process.env.BENCH_DIR ?? tmpdir()
  await mkdir(base, { recursive: true })
  const dir = path.join(base, `ricochet-bench-ingest-${process.pid}-${Date.now()}`)
  // Cleans up on success, failure and (through the harness) Ctrl-C, newest first.
  const scope = new Scope()
  try {
    await mkdir(dir, { recursive: true })
    scope.defer("remove ingest dir", () => rm(dir, { recursive: true, force: true }))
    const writer = await openDuckDb(1) // as the engine's click writer thread opens it
    const reader = await openDuckDb(2)
    scope.defer("close DuckDB", () => {
      writer.closeSync()
      reader.closeSync()
    })
    const links = syntheticLinks(10_000)
    const pool = clickRecordPool(50_000, links)
    const frames = Array.from({ length: 16 }, (_, i) => encodeClicks(cutBatch(pool, i * BATCH, BATCH, Date.now())))
    const spoolBytesPerClick = frames.reduce((sum, f) => sum + f.length, 0) / (frames.length * BATCH)

    const disk = await rawDisk(dir, frames, Math.min(DURATION_S, 5))
    await rm(path.join(dir, "raw.spool"), { force: true })

    // 1. Flat out: the most the sink acknowledges.
    const flat = await feedSink(path.join(dir, "flat"), pool, writer, null)
    const flatParquet = await countParquet(reader, flat.clicksDir)
    // What control's compaction makes of those files (an hour later): one sorted file per hour.
    await compactClicks(flat.clicksDir, async (sql) => void (await reader.run(sql)), Date.now() + 2 * 3_600_000, { settleMs: 0 })
    const merged = await countParquet(reader, flat.clicksDir)
    await rm(path.join(dir, "flat"), { recursive: true, force: true })

    // 2. Paced at the goal rate: does the sink keep up, to the spool and into Parquet?
    const paced = await feedSink(path.join(dir, "paced"), pool, writer, RATE)
    const pacedParquet = await countParquet(reader, paced.clicksDir)
    await rm(path.join(dir, "paced"), { recursive: true, force: true })

    // 3. The engine's click path: ClickCollector in front of the sink.
    const viaCollector = await collectorPath(path.join(dir, "collector"), writer)
    const collectorParquet = await countParquet(reader, viaCollector.clicksDir)

    const lossless = (run: typeof flat, parquet: Awaited<ReturnType<typeof countParquet>>) =>
      run.failed === 0 && run.acknowledged === run.offered && parquet.rows === run.acknowledged &&
      parquet.distinct === run.acknowledged && run.rolled === run.acknowledged
    const zeroLoss = lossless(flat, flatParquet) && lossless(paced, pacedParquet) && merged.rows === flat.acknowledged
    const collectorZeroLoss = collectorParquet.rows === viaCollector.counted && viaCollector.acknowledged === viaCollector.counted
    const pacedKeepsUp = paced.ackPerS >= 0.98 * RATE && paced.rolledPerS >= 0.95 * RATE

    return {
      figures: {
        "clicks/s acknowledged, flat out": round(flat.ackPerS),
        "ack latency p50 / p99 ms, flat out": `${round(flat.ackP50, 1)} / ${round(flat.ackP99, 1)}`,
        "clicks/s into Parquet while flat out (between roll completions)": rateText(flat.rolledPerS),
        "Parquet backlog at end of flat-out load (clicks)": flat.backlogAtLoadEnd,
        "event-loop delay p99 / max ms, flat out": `${round(flat.loopP99Ms, 1)} / ${round(flat.loopMaxMs, 1)}`,
        "clicks/s start → all in Parquet, flat out": round(flat.inParquetPerS),
        "drain after flat-out load s": round(flat.drainS, 2),
        [`clicks/s acknowledged, paced at ${RATE}`]: round(paced.ackPerS),
        [`ack latency p50 / p99 ms, paced`]: `${round(paced.ackP50, 1)} / ${round(paced.ackP99, 1)}`,
        "clicks/s into Parquet while paced (between roll completions)": rateText(paced.rolledPerS),
        "event-loop delay p99 / max ms, paced": `${round(paced.loopP99Ms, 1)} / ${round(paced.loopMaxMs, 1)}`,
        "rolls during paced load": paced.rollsDuringLoad,
        "max Parquet backlog while paced (clicks)": paced.maxBacklog,
        "drain after paced load s": round(paced.drainS, 2),
        "clicks acknowledged / rows / distinct rows in Parquet (flat out)": `${flat.acknowledged} / ${flatParquet.rows} / ${flatParquet.distinct}`,
        "clicks acknowledged / rows / distinct rows in Parquet (paced)": `${paced.acknowledged} / ${pacedParquet.rows} / ${pacedParquet.distinct}`,
        "Parquet files (engine rolls, flat out)": flatParquet.files,
        "Parquet bytes/click (engine rolls)": round(flatParquet.bytes / Math.max(1, flatParquet.rows), 1),
        "Parquet bytes/click (compacted hour)": round(merged.bytes / Math.max(1, merged.rows), 1),
        "spool bytes/click (CSV)": round(spoolBytesPerClick, 1),
        "collector path clicks/s acknowledged": round(viaCollector.ackPerS),
        "collector path clicks / rows in Parquet": `${viaCollector.counted} / ${collectorParquet.rows}`,
        "deriveClick clicks/s (one thread)": round(viaCollector.derivePerS)
      },
      baseline: {
        "clicks/s acknowledged, flat out": round(disk.clicksPerS),
        "raw append+fdatasync MB/s": round(disk.mbPerS, 1),
        "fdatasync per batch ms": round(disk.fsyncMs, 2)
      },
      ratios: {
        "sink flat-out ack rate vs raw disk": round(flat.ackPerS / disk.clicksPerS, 3),
        ...(Number.isFinite(flat.rolledPerS) ? { "Parquet rate vs ack rate, flat out": round(flat.rolledPerS / flat.ackPerS, 3) } : {}),
        "collector path vs sink flat out": round(viaCollector.ackPerS / flat.ackPerS, 3)
      },
      goals: [
        { goal: `sink acknowledges ≥ ${GOAL} clicks/s (flat out)`, value: round(flat.ackPerS), met: flat.ackPerS >= GOAL },
        {
          goal: `sink keeps up with ${RATE} clicks/s offered: ≥ 98% acknowledged on schedule, Parquet produced at ≥ 95% of it while loaded`,
          value: `${round(paced.ackPerS)} acked/s, ${rateText(paced.rolledPerS)} into Parquet/s`,
          met: pacedKeepsUp
        },
        {
          goal: "zero loss: Parquet rows = distinct rows = acknowledged = offered, both runs (and after compaction)",
          value: `${flatParquet.rows}/${flatParquet.distinct}/${flat.acknowledged}; ${pacedParquet.rows}/${pacedParquet.distinct}/${paced.acknowledged}; merged ${merged.rows}`,
          met: zeroLoss
        },
        { goal: `engine click path (ClickCollector → sink) ≥ ${GOAL} clicks/s`, value: round(viaCollector.ackPerS), met: viaCollector.ackPerS >= GOAL && collectorZeroLoss }
      ],
      notes: [
        `In-process: a SpoolSink (fsyncMs ${FSYNC_MS}, roll every ${ROLL_MS} ms, DuckDB with 1 thread — the engine defaults, as its click writer thread opens it) in a temp dir, fed synthetic ClickRecords in batches of ${BATCH} (fresh timestamp, unique visitor hash each) for ${DURATION_S} s: once flat out (as fast as it acknowledges, at most ${MAX_IN_FLIGHT} clicks unacknowledged), once paced at ${RATE} clicks/s (BENCH_INGEST_RATE). After each, close() (flush + final roll) and rows counted back from the Parquet files with DuckDB via listClickFiles; distinct visitor hashes prove no click is duplicated.`,
        `Acknowledged clicks/s are steady rates: clicks acknowledged between ${WARM_MS} ms after the start and the end of the load, per second (no ramp-up, no tail).`,
        "Event-loop delay (monitorEventLoopDelay, 10 ms resolution) is of the process running the sink: the roll decodes the sealed segment and serialises it to NDJSON synchronously, which in an engine is the loop that serves redirects. Parquet rate while loaded = clicks rolled between the first and last roll completion seen during the load (the roll runs every rollMs on the same event loop as the producer). 'start → all in Parquet' includes the drain after the load stops.",
        "Records are cut from a pool of 50,000 varied clicks over 10,000 links (Zipf-ish popularity, 20 countries, devices/browsers/OS, referers, UTM values on half the links, ~10% agents).",
        `Baseline: the same CSV spool batches appended with FileHandle.appendFile + fdatasync, one batch per sync, flat out for ${Math.min(DURATION_S, 5)} s (what the disk allows; no encoding, no group commit, no Parquet).`,
        `Collector path: raw clicks added one by one (500 per event-loop turn) to the engine's ClickCollector as engine.ts creates it (batches of 2,000 or every 50 ms; deriving audience, geo from the bundled country database, device, referer, UTM, visitor hash; ~2% bots dropped) in front of a fresh SpoolSink, for ${DURATION_S} s, at most ${MAX_IN_FLIGHT} clicks unacknowledged; deriving shares the event loop with the sink's rolls.`,
        "Compacted bytes/click: control's compactClicks run over the flat-out files as if two hours later (one merged, sorted file per hour).",
        "Not measured here: ingest while serving redirect load through a real engine process (HTTP + collector + sink on one event loop); redirect-hit reports clicks recorded per request under redirect load, and the collector-path figure here is the click pipeline's share of that without HTTP.",
        "Producer, sink, collector and DuckDB share this process and the machine's cores (see machine in the result)."
      ]
    }
  } finally {
    await scope.close()
  }
}
