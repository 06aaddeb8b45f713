import { constants, monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks"
import { buildInfo } from "./buildInfo.ts"
import { FixedHistogram } from "./fixedHistogram.ts"
import { type Family, renderFamilies } from "./prometheusText.ts"

/**
 * The process's own series, under the names prom-client gives them (dashboards made for Node
 * services read them as they are), from Node's process and perf_hooks APIs: CPU, memory, heap,
 * event-loop delay and garbage collections, and `ricochet_build_info`. They describe the process,
 * not control or the engine, so each process serves them once: on control's /metrics when
 * control runs in it (`npm start`, `ricochet control`), on the engine's when it runs alone.
 * Heap, event loop and collections are the main thread's (an engine's HTTP workers have their own).
 */

const GC_KINDS: ReadonlyArray<readonly [number, string]> = [
  [constants.NODE_PERFORMANCE_GC_MINOR, "minor"],
  [constants.NODE_PERFORMANCE_GC_MAJOR, "major"],
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL, "incremental"],
  [constants.NODE_PERFORMANCE_GC_WEAKCB, "weakcb"]
]
/** Seconds, as prom-client's. */
const GC_BOUNDARIES = [0.001, 0.01, 0.1, 1, 2, 5]

const NS = 1e-9

const sampler = () => {
  const startTime = Math.round(Date.now() / 1000 - process.uptime())
  // Sampled every 10 ms by libuv on its own timer (unreferenced: it keeps no process alive).
  const loop = monitorEventLoopDelay({ resolution: 10 })
  loop.enable()
  const collections = new Map(GC_KINDS.map(([kind]) => [kind, new FixedHistogram(GC_BOUNDARIES)]))
  // Entries come in batches after the collections, off any request's path.
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = ((entry as { detail?: unknown }).detail as { kind?: number } | null | undefined)?.kind
      if (kind !== undefined) collections.get(kind)?.record(entry.duration / 1000)
    }
  }).observe({ entryTypes: ["gc"] })

  return (): Array<Family> => {
    const cpu = process.cpuUsage()
    const memory = process.memoryUsage()
    // Since the previous scrape; no samples yet reads as no delay.
    const delay = (value: number) => (loop.count > 0 && Number.isFinite(value) ? value * NS : 0)
    const lag = { mean: delay(loop.mean), p50: delay(loop.percentile(50)), p99: delay(loop.percentile(99)), max: delay(loop.max) }
    loop.reset()
    const gauge = (name: string, help: string, value: number): Family => ({ name, help, type: "gauge", samples: [{ value }] })
    const counter = (name: string, help: string, value: number): Family => ({ name, help, type: "counter", samples: [{ value }] })
    const info = buildInfo()
    return [
      {
        name: "ricochet_build_info",
        help: "Ricochet's version and the Node.js version running it; always 1",
        type: "gauge",
        samples: [{ labels: { version: info.version, node: info.node }, value: 1 }]
      },
      counter("process_cpu_user_seconds_total", "User CPU time spent by the process, in seconds", cpu.user / 1e6),
      counter("process_cpu_system_seconds_total", "System CPU time spent by the process, in seconds", cpu.system / 1e6),
      counter("process_cpu_seconds_total", "User and system CPU time spent by the process, in seconds", (cpu.user + cpu.system) / 1e6),
      gauge("process_start_time_seconds", "When the process started, in seconds since the Unix epoch", startTime),
      gauge("process_resident_memory_bytes", "Resident memory of the process, in bytes", memory.rss),
      gauge("nodejs_heap_size_total_bytes", "V8 heap allocated by the main thread, in bytes", memory.heapTotal),
      gauge("nodejs_heap_size_used_bytes", "V8 heap in use by the main thread, in bytes", memory.heapUsed),
      gauge("nodejs_external_memory_bytes", "Memory of C++ objects bound to the main thread's JavaScript objects, in bytes", memory.external),
      gauge("nodejs_eventloop_lag_mean_seconds", "Mean delay of the main thread's event loop since the previous scrape, in seconds", lag.mean),
      gauge("nodejs_eventloop_lag_p50_seconds", "Median delay of the main thread's event loop since the previous scrape, in seconds", lag.p50),
      gauge("nodejs_eventloop_lag_p99_seconds", "99th percentile delay of the main thread's event loop since the previous scrape, in seconds", lag.p99),
      gauge("nodejs_eventloop_lag_max_seconds", "Longest delay of the main thread's event loop since the previous scrape, in seconds", lag.max),
      {
        name: "nodejs_gc_duration_seconds",
        help: "Garbage collections of the main thread by kind (minor, major, incremental, weakcb), in seconds",
        type: "histogram",
        series: GC_KINDS.map(([kind, label]) => {
          const { counts, sum } = collections.get(kind)!.snapshot()
          return { labels: { kind: label }, boundaries: GC_BOUNDARIES, counts, sum }
        })
      }
    ]
  }
}

let sample: (() => Array<Family>) | undefined

/**
 * Starts measuring (the event-loop monitor and the collection observer; once per process) and
 * answers the text to append to a /metrics body.
 */
export const processMetrics = (): (() => string) => {
  const read = (sample ??= sampler())
  return () => renderFamilies(read())
}
