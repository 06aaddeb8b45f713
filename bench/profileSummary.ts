import { existsSync, readFileSync } from "node:fs"
import { SourceMap } from "node:module"
import { fileURLToPath } from "node:url"

/**
 * Where a CPU profile's time went, over the window the server was under load:
 *   BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" npm run bench -- redirect-hit
 *   npx tsx bench/profileSummary.ts /tmp/prof/<largest>.cpuprofile [rows] [url-pattern]
 * The window is the span of the samples whose stack passes through a file matching url-pattern
 * (default `http/server.ts`, the engine's request handler), trimmed of its first and last 5%.
 * Prints self and inclusive time per function, in % of the window. "(idle)" includes the time
 * uWS.js spends in native code and the kernel outside JavaScript. The processes run the build
 * (dist/): each frame of a bundle is named after its source file and line, from the bundle's map.
 */

interface Node {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number; readonly columnNumber: number }
  readonly children?: ReadonlyArray<number>
}
interface Profile {
  readonly nodes: ReadonlyArray<Node>
  readonly startTime: number
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

const [file, rowsArg, patternArg] = process.argv.slice(2)
if (file === undefined) {
  console.error("usage: npx tsx bench/profileSummary.ts FILE.cpuprofile [rows] [url-pattern]")
  process.exit(2)
}
const rows = Number(rowsArg ?? 30)
const pattern = new RegExp(patternArg ?? "http/server\\.ts")
const maps = new Map<string, SourceMap | undefined>()
const mapOf = (url: string): SourceMap | undefined => {
  if (!maps.has(url)) {
    const mapFile = url.startsWith("file:") ? `${fileURLToPath(url)}.map` : undefined
    maps.set(url, mapFile !== undefined && existsSync(mapFile) ? new SourceMap(JSON.parse(readFileSync(mapFile, "utf8"))) : undefined)
  }
  return maps.get(url)
}
/** A frame of a bundle as the source it was built from (url and line), when the bundle has a map. */
const fromSource = (node: Node): Node => {
  const map = mapOf(node.callFrame.url)
  const entry = map?.findEntry(node.callFrame.lineNumber, node.callFrame.columnNumber) as
    | { originalSource?: string; originalLine?: number; originalColumn?: number }
    | undefined
  if (entry?.originalSource === undefined) return node
  const url = new URL(entry.originalSource, node.callFrame.url).href
  return { ...node, callFrame: { ...node.callFrame, url, lineNumber: entry.originalLine ?? 0, columnNumber: entry.originalColumn ?? 0 } }
}
const raw = JSON.parse(readFileSync(file, "utf8")) as Profile
const profile: Profile = { ...raw, nodes: raw.nodes.map(fromSource) }

const byId = new Map(profile.nodes.map((node) => [node.id, node]))
const parent = new Map<number, number>()
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
const name = (node: Node) =>
  `${node.callFrame.functionName || "(anonymous)"} ${node.callFrame.url.split("/").slice(-2).join("/")}:${node.callFrame.lineNumber + 1}`
const stack = (id: number): Array<Node> => {
  const frames: Array<Node> = []
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) frames.push(byId.get(at)!)
  return frames
}

const times: Array<number> = []
let clock = profile.startTime
for (const delta of profile.timeDeltas) times.push((clock += delta))
const loaded = profile.samples.flatMap((id, i) => (stack(id).some((n) => pattern.test(n.callFrame.url)) ? [times[i]] : []))
if (loaded.length === 0) {
  console.error(`no sample passes through a file matching ${pattern}`)
  process.exit(1)
}
const from = loaded[Math.floor(loaded.length * 0.05)]
const to = loaded[Math.floor(loaded.length * 0.95)]

const self = new Map<string, number>()
const inclusive = new Map<string, number>()
let total = 0
profile.samples.forEach((id, i) => {
  if (times[i] < from || times[i] > to) return
  const weight = profile.timeDeltas[i + 1] ?? 0
  total += weight
  const frames = stack(id)
  self.set(name(frames[0]), (self.get(name(frames[0])) ?? 0) + weight)
  for (const key of new Set(frames.map(name))) inclusive.set(key, (inclusive.get(key) ?? 0) + weight)
})

const print = (title: string, table: Map<string, number>) => {
  console.log(`-- ${title}`)
  for (const [key, value] of [...table].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
    console.log(`${((100 * value) / total).toFixed(1).padStart(6)}%  ${key}`)
  }
}
console.log(`window: ${((to - from) / 1e6).toFixed(1)} s of load`)
print("self", self)
print("inclusive", inclusive)
