import { readFileSync, statSync } from "node:fs"
import * as path from "node:path"

/**
 * What scripts/build.ts leaves in dist/build.json, so that a build older than its sources is
 * never run by mistake: `npm start` and the CLI refuse it (shared/build/launch.ts), the tests and
 * the benchmarks build again first.
 *
 * Read before anything else loads, so without Effect: a plain check of the two fields.
 */
export interface BuildManifest {
  /** When the build began reading its files (ms since the epoch): a file changed later is not in it. */
  readonly startedAt: number
  /**
   * Every file the build is made of, relative to the project root: the sources and package files
   * bundled, the migrations copied, and the install's record (node_modules/.package-lock.json,
   * which npm rewrites on every install: npm gives the files it unpacks a fixed old date).
   */
  readonly inputs: ReadonlyArray<string>
}

export const MANIFEST_FILE = "build.json"

export const decodeManifest = (text: string): BuildManifest | undefined => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (typeof value !== "object" || value === null) return undefined
  const { startedAt, inputs } = value as Record<string, unknown>
  if (typeof startedAt !== "number" || !Number.isFinite(startedAt)) return undefined
  if (!Array.isArray(inputs) || !inputs.every((input) => typeof input === "string")) return undefined
  return { startedAt, inputs }
}

/** Whether an input is one of the project's own files rather than an installed package's. */
const ownFile = (input: string) => !input.split("/").includes("node_modules")

/**
 * The first input changed since the build began, given each input's modification time (undefined
 * for a file that is not there). Where none of the project's own files is (an image carries the
 * build and the packages, not the sources), there is nothing to compare with: undefined. A file
 * that is gone is no reason to build again: whatever imported it changed too.
 */
export const changedInput = (manifest: BuildManifest, modifiedAt: (input: string) => number | undefined): string | undefined => {
  const times = manifest.inputs.map((input) => ({ input, at: modifiedAt(input) }))
  if (!times.some(({ input, at }) => at !== undefined && ownFile(input))) return undefined
  return times.find(({ at }) => at !== undefined && at > manifest.startedAt)?.input
}

const modifiedAtIn = (root: string) => (input: string): number | undefined => {
  try {
    return statSync(path.join(root, input)).mtimeMs
  } catch {
    return undefined
  }
}

/**
 * Why the build in `distDir` (the project's dist/) must not run, or undefined when it may: it has
 * no manifest (an interrupted or foreign build), or a file it is made of changed since.
 */
export const buildProblem = (distDir: string): string | undefined => {
  const dist = path.basename(distDir)
  let text: string
  try {
    text = readFileSync(path.join(distDir, MANIFEST_FILE), "utf8")
  } catch {
    return `${dist}/ holds no complete build (no ${MANIFEST_FILE}): run \`npm run build\``
  }
  const manifest = decodeManifest(text)
  if (manifest === undefined) return `${dist}/${MANIFEST_FILE} is not a build manifest: run \`npm run build\``
  const changed = changedInput(manifest, modifiedAtIn(path.dirname(distDir)))
  if (changed === undefined) return undefined
  return `the build in ${dist}/ is older than ${changed}: run \`npm run build\` (or \`npm run dev\` to run the sources as they are)`
}
