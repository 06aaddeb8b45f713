import { readdirSync, readFileSync } from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { ROOT } from "../support/processes.ts"

/**
 * Control's rooms, read from its sources: each top-level folder of control/ is one room (its
 * subfolders belong to it; the files at the root are the process, room "."), and a room imports
 * another when any of its files does, statically, type imports and re-exports included. The
 * kernel is the floor every resource stands on; the server root (http/) stands on the resources.
 */
const KERNEL = "kernel"
const SERVER = "http"

const roomOf = (file: string): string => {
  const parts = path.relative(path.join(ROOT, "control"), file).split(path.sep)
  return parts.length === 1 ? "." : parts[0]
}

const arrows = (): Map<string, Set<string>> => {
  const found = new Map<string, Set<string>>()
  const sources = readdirSync(path.join(ROOT, "control"), { recursive: true, encoding: "utf8" })
    .filter((file) => /\.(ts|mjs)$/.test(file))
    .map((file) => path.join(ROOT, "control", file))
  for (const file of sources) {
    const text = readFileSync(file, "utf8")
    for (const match of text.matchAll(/^\s*(?:import|export)\s+(?:[^"'`;]*?\sfrom\s+)?["'](\.{1,2}\/[^"']+)["']/gm)) {
      const target = path.resolve(path.dirname(file), match[1])
      if (!target.startsWith(path.join(ROOT, "control") + path.sep)) continue
      const from = roomOf(file)
      const to = roomOf(target)
      if (from === to) continue
      const line = `${path.relative(ROOT, file)} -> ${path.relative(ROOT, target)}`
      const key = `${from} -> ${to}`
      if (!found.has(key)) found.set(key, new Set())
      found.get(key)!.add(line)
    }
  }
  return found
}

describe("control's rooms point one way", () => {
  const graph = arrows()

  it("reads the import graph (a parser that found nothing would pass everything)", () => {
    expect(graph.size).toBeGreaterThan(20)
    expect([...graph.keys()]).toContain(`${SERVER} -> links`)
    expect([...graph.keys()]).toContain(`links -> ${KERNEL}`)
  })

  it("has no two rooms importing each other", () => {
    const twoWay: Array<string> = []
    for (const [key, lines] of graph) {
      const [from, to] = key.split(" -> ")
      const back = graph.get(`${to} -> ${from}`)
      if (from < to && back !== undefined) twoWay.push(`${from} <-> ${to}: ${[...lines, ...back].join(", ")}`)
    }
    expect(twoWay).toEqual([])
  })

  it("has no longer circle of rooms either (links -> webhooks -> analytics -> links)", () => {
    const next = new Map<string, Array<string>>()
    for (const key of graph.keys()) {
      const [from, to] = key.split(" -> ")
      next.set(from, [...(next.get(from) ?? []), to])
    }
    const circles: Array<string> = []
    const state = new Map<string, "open" | "done">()
    const visit = (room: string, trail: Array<string>) => {
      if (state.get(room) === "done") return
      if (state.get(room) === "open") {
        circles.push([...trail.slice(trail.indexOf(room)), room].join(" -> "))
        return
      }
      state.set(room, "open")
      for (const to of next.get(room) ?? []) visit(to, [...trail, room])
      state.set(room, "done")
    }
    for (const room of next.keys()) visit(room, [])
    expect(circles).toEqual([])
  })

  it("has a kernel that imports no other room of control", () => {
    const upward = [...graph].filter(([key]) => key.startsWith(`${KERNEL} -> `)).flatMap(([, lines]) => [...lines])
    expect(upward).toEqual([])
  })

  it("has a database layer that speaks no HTTP and knows no metrics or outbox (they wrap it as hooks)", () => {
    const outward = [...graph].filter(([key]) => key.startsWith("db -> ")).flatMap(([, lines]) => [...lines])
      .filter((line) => !line.endsWith("-> control/kernel/DatabaseUnavailable.ts"))
    expect(outward).toEqual([])
  })

  it("has a server root that only the process imports", () => {
    const intoServer = [...graph].filter(([key]) => key.endsWith(` -> ${SERVER}`) && !key.startsWith(". -> ")).flatMap(([, lines]) => [...lines])
    expect(intoServer).toEqual([])
  })
})
