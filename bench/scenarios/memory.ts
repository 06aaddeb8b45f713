import { spawn } from "node:child_process"
import * as path from "node:path"
import type { ScenarioResult } from "../lib/result.ts"
import { round } from "../lib/load.ts"
import { Scope } from "../lib/processes.ts"

export const description =
  "Engine memory: RSS growth per cached link with 1,000,000 links in the engine's LinkCache (child process, after gc), vs a plain Map of 1M url strings"

const ROOT = path.resolve(import.meta.dirname, "../..")

interface Measurement {
  readonly mode: "cache" | "map"
  readonly count: number
  readonly cached: number
  readonly cacheBytes: number
  readonly loadMs: number
  readonly rssBefore: number
  readonly rssAfter: number
  readonly heapBefore: number
  readonly heapAfter: number
  readonly externalBefore: number
  readonly externalAfter: number
}

const measure = (scope: Scope, mode: "cache" | "map", count: number): Promise<Measurement> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--expose-gc", "--max-old-space-size=8192", "--import", "tsx", path.join(ROOT, "bench/lib/memoryChild.ts"), mode, String(count)],
      { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] }
    )
    scope.defer(`memory child (${mode})`, () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
    })
    let output = ""
    child.stdout.on("data", (chunk) => (output += chunk))
    child.stderr.on("data", (chunk) => (output += chunk))
    const timer = setTimeout(() => child.kill("SIGKILL"), 300_000)
    child.once("error", reject)
    child.once("exit", (code, signal) => {
      clearTimeout(timer)
      const line = /MEMORY_JSON (.*)/.exec(output)?.[1]
      if (code !== 0 || line === undefined) return reject(new Error(`memory child (${mode}) exited ${code ?? signal}:\n${output}`))
      resolve(JSON.parse(line) as Measurement)
    })
  })

export default async function run(): Promise<ScenarioResult> {
  const count = Math.floor(Number(process.env.BENCH_MEMORY_LINKS ?? 1_000_000))
  const scope = new Scope()
  try {
    const map = await measure(scope, "map", count)
    const cache = await measure(scope, "cache", count)
    const per = (m: Measurement, before: keyof Measurement, after: keyof Measurement) =>
      ((m[after] as number) - (m[before] as number)) / m.count
    const cacheRss = per(cache, "rssBefore", "rssAfter")
    const mapRss = per(map, "rssBefore", "rssAfter")
    return {
      figures: {
        "RSS bytes per link": Math.round(cacheRss),
        "heap bytes per link": Math.round(per(cache, "heapBefore", "heapAfter")),
        "RSS growth MiB": round((cache.rssAfter - cache.rssBefore) / 2 ** 20, 1),
        "links loaded": cache.count,
        "links cached": cache.cached,
        "cache's own size estimate bytes per link": Math.round(cache.cacheBytes / Math.max(1, cache.cached)),
        "load time ms": cache.loadMs
      },
      baseline: {
        "RSS bytes per link": Math.round(mapRss),
        "heap bytes per link": Math.round(per(map, "heapBefore", "heapAfter")),
        "RSS growth MiB": round((map.rssAfter - map.rssBefore) / 2 ** 20, 1),
        "links loaded": map.count,
        "links cached": map.cached,
        "load time ms": map.loadMs
      },
      ratios: {
        "RSS per link vs plain Map": round(cacheRss / mapRss, 3)
      },
      goals: [
        { goal: "RSS growth <= 1 KB (1,024 bytes) per cached link", value: Math.round(cacheRss), met: cacheRss <= 1024 && cache.cached === cache.count },
      ],
      notes: [
        `each figure from its own child process (node --expose-gc --import tsx bench/lib/memoryChild.ts), RSS after global.gc() before and after loading ${count.toLocaleString("en-US")} distinct links`,
        "ricochet: engine/cache/linkCache.ts LinkCache with the engine's default bounds, filled through loadLink from a fake LinkSource; records: ~60-character url, " +
          "7-character slug, a third with a utm set, a tenth with two geo rules, a twentieth with a device rule; strings copied as a database driver would return them",
        "the before figure is taken before the cache is constructed, so the LRU's own arrays count towards the growth",
        "baseline: a plain Map from the same keys (host + slug) to the url strings",
        ...(cache.cached !== cache.count ? [`only ${cache.cached} of ${cache.count} links stayed cached (the cache's bounds evicted the rest)`] : [])
      ]
    }
  } finally {
    await scope.close()
  }
}
