import { mkdir, mkdtemp, rm, utimes, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { buildProblem, changedInput, decodeManifest } from "../../shared/build/buildManifest.ts"

const BUILT_AT = 1_000_000

describe("changedInput: whether a build is older than what it was made of", () => {
  const manifest = { startedAt: BUILT_AT, inputs: ["main.ts", "engine/x.ts", "node_modules/effect/dist/index.js", "node_modules/.package-lock.json"] }
  it.each<readonly [string, Record<string, number>, string | undefined]>([
    ["nothing changed", { "main.ts": 1, "engine/x.ts": BUILT_AT - 1, "node_modules/effect/dist/index.js": 1, "node_modules/.package-lock.json": 5 }, undefined],
    ["a source saved after the build began", { "main.ts": 1, "engine/x.ts": BUILT_AT + 1, "node_modules/.package-lock.json": 5 }, "engine/x.ts"],
    ["a source saved while it ran (same millisecond, later)", { "main.ts": BUILT_AT + 0.5 }, "main.ts"],
    ["an install since (npm rewrites its lockfile)", { "main.ts": 1, "node_modules/.package-lock.json": BUILT_AT + 10 }, "node_modules/.package-lock.json"],
    ["a package file patched since", { "main.ts": 1, "node_modules/effect/dist/index.js": BUILT_AT + 10 }, "node_modules/effect/dist/index.js"],
    ["a source deleted (what imported it changed too)", { "main.ts": 1 }, undefined],
    // An image: the build and the packages, no sources; packages installed after the build are no reason.
    ["no source at all", { "node_modules/.package-lock.json": BUILT_AT + 10, "node_modules/effect/dist/index.js": BUILT_AT + 10 }, undefined]
  ])("%s", (_, times, expected) => {
    expect(changedInput(manifest, (input) => times[input])).toBe(expected)
  })
})

describe("decodeManifest", () => {
  it.each<readonly [string, boolean]>([
    [`{"startedAt":1,"inputs":["a.ts"]}`, true],
    [`{"startedAt":1,"inputs":[]}`, true],
    [`{"startedAt":"1","inputs":[]}`, false],
    [`{"startedAt":1,"inputs":[1]}`, false],
    [`{"startedAt":1}`, false],
    [`null`, false],
    [`{"startedAt":1,`, false]
  ])("%s: %s", (text, valid) => {
    expect(decodeManifest(text) !== undefined).toBe(valid)
  })
})

describe("buildProblem: one line saying why a build must not run", () => {
  const roots: Array<string> = []
  /** A project of its own for each test (main.ts and an empty dist/), so they pass in any order. */
  const project = async () => {
    const root = await mkdtemp(path.join(tmpdir(), "ricochet-build-"))
    roots.push(root)
    await mkdir(path.join(root, "dist"))
    await writeFile(path.join(root, "main.ts"), "")
    return { root, dist: path.join(root, "dist") }
  }
  afterAll(async () => {
    await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })))
  })

  it("names a missing manifest", async () => {
    const { dist } = await project()
    expect(buildProblem(dist)).toBe("dist/ holds no complete build (no build.json): run `npm run build`")
  })

  it("names a manifest it cannot read", async () => {
    const { dist } = await project()
    await writeFile(path.join(dist, "build.json"), "{}")
    expect(buildProblem(dist)).toBe("dist/build.json is not a build manifest: run `npm run build`")
  })

  it("names the source changed since, and accepts the build once it is newer", async () => {
    const { root, dist } = await project()
    const startedAt = Date.now()
    await writeFile(path.join(dist, "build.json"), JSON.stringify({ startedAt, inputs: ["main.ts"] }))
    const later = new Date(startedAt + 60_000)
    await utimes(path.join(root, "main.ts"), later, later)
    expect(buildProblem(dist)).toBe("the build in dist/ is older than main.ts: run `npm run build` (or `npm run dev` to run the sources as they are)")
    const earlier = new Date(startedAt - 60_000)
    await utimes(path.join(root, "main.ts"), earlier, earlier)
    expect(buildProblem(dist)).toBeUndefined()
  })
})
