import { createHash } from "node:crypto"
import { copyFile, mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import * as esbuild from "esbuild"
import { TEMPLATE_FILE } from "../control/db/embeddedTemplate.ts"
import { type BuildManifest, buildProblem, MANIFEST_FILE } from "../shared/build/buildManifest.ts"

/**
 * The servers and the CLI as JavaScript, in dist/ (git-ignored): `npm ci` builds it (prepare),
 * `npm run build` again after a change; `npm start`, `npm run ricochet`, the image and the tests'
 * processes run it. TypeScript through tsx is for development only (`npm run dev`).
 *
 * One bundle per process and per worker thread, every one in dist/ itself: code that finds a
 * file from its own URL (import.meta.url) finds it from dist/ wherever it was bundled
 * (shared/build/modulePaths.ts). Packages are bundled too (one file loads much faster than
 * hundreds of modules), except those in EXTERNAL.
 */

export const ROOT = path.resolve(import.meta.dirname, "..")
export const DIST = path.join(ROOT, "dist")

/** Processes: `node dist/NAME.js` checks Node and the build (shared/build/launch.ts), then runs dist/program-NAME.js. */
export const PROCESSES = [
  { name: "main", source: "main.ts" },
  { name: "ricochet", source: "cli/ricochet.ts" }
] as const

/** Worker threads: dist/NAME.js for NAME.ts (shared/build/modulePaths.ts's workerEntry). */
export const WORKERS = ["engine/workers/httpWorker.ts", "engine/clicks/clickWriter.ts", "control/links/qr/qrWorker.ts"] as const

/**
 * Packages loaded from node_modules rather than bundled: native code or files of their own read at
 * run time (uWebSockets.js, DuckDB's bindings, xxhash, msgpackr's optional extract, PGlite's
 * WebAssembly and data, the optional native helpers of the WebSocket package), and postgres.js,
 * which patches/apply.mjs patches in place after every install. DuckDB's JavaScript API is
 * bundled: imported from node_modules, Node reads each of its thirty CommonJS files for their exports
 * before the program starts.
 */
export const EXTERNAL = [
  "uWebSockets.js",
  "@duckdb/node-bindings*",
  "@node-rs/*",
  "msgpackr",
  "msgpackr-extract",
  "@electric-sql/*",
  "bufferutil",
  "utf-8-validate",
  "postgres"
]

const LAUNCHER = "launcher:"
const MIGRATIONS = "control/db/migrations"

/** The launcher of each process, made here rather than kept as a file per process: two lines. */
const launchers: esbuild.Plugin = {
  name: "launchers",
  setup(build) {
    build.onResolve({ filter: /^launcher:/ }, (args) => ({ path: args.path.slice(LAUNCHER.length), namespace: "launcher" }))
    build.onLoad({ filter: /.*/, namespace: "launcher" }, (args) => ({
      contents: `import { launch } from "./shared/build/launch.ts"\nawait launch(import.meta.url, "./program-${args.path}.js")\n`,
      resolveDir: ROOT,
      loader: "ts"
    }))
  }
}

const relative = (file: string) => path.relative(ROOT, file).split(path.sep).join("/")

/** What the template was made from (the PGlite installed, the migrations): the previous build's is kept while they are the same. */
const TEMPLATE_KEY_FILE = "embedded-template.key"

const readOrUndefined = (file: string) => readFile(file, "utf8").catch(() => undefined)

/**
 * The database a new embedded data directory starts from (control/db/embeddedTemplate.ts): the
 * previous build's copy when made from the same PGlite and migrations, else made again (initdb and
 * the migrations: some seconds).
 */
const writeEmbeddedTemplate = async (out: string, migrations: ReadonlyArray<string>): Promise<void> => {
  const pglite = JSON.parse(await readFile(path.join(ROOT, "node_modules/@electric-sql/pglite/package.json"), "utf8")).version as string
  const hash = createHash("sha256")
  for (const file of migrations) hash.update(`${file}\0`).update(await readFile(path.join(ROOT, MIGRATIONS, file))).update("\0")
  const key = JSON.stringify({ pglite, migrations: hash.digest("hex") })
  if ((await readOrUndefined(path.join(DIST, TEMPLATE_KEY_FILE))) === key) {
    try {
      await copyFile(path.join(DIST, TEMPLATE_FILE), path.join(out, TEMPLATE_FILE))
      await writeFile(path.join(out, TEMPLATE_KEY_FILE), key)
      return
    } catch {
      // Made again below.
    }
  }
  const { makeEmbeddedTemplate } = await import("./embeddedTemplate.ts")
  await writeFile(path.join(out, TEMPLATE_FILE), await makeEmbeddedTemplate())
  await writeFile(path.join(out, TEMPLATE_KEY_FILE), key)
}

/**
 * Builds dist/ from scratch: into a directory of its own first, then put in place of the old one,
 * so a process starting meanwhile runs the old build or the new one, never half of each.
 */
export const build = async (): Promise<void> => {
  const startedAt = Date.now()
  const out = path.join(ROOT, `.dist-${process.pid}`)
  await rm(out, { recursive: true, force: true })
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: [
      ...PROCESSES.flatMap(({ name, source }) => [
        { in: `${LAUNCHER}${name}`, out: name },
        { in: source, out: `program-${name}` }
      ]),
      ...WORKERS.map((source) => ({ in: source, out: path.basename(source, ".ts") }))
    ],
    outdir: out,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    external: EXTERNAL,
    plugins: [launchers],
    // Bundled CommonJS packages require Node's modules: give ES module output a require.
    banner: { js: `import { createRequire as __ricochetCreateRequire } from "node:module";\nconst require = __ricochetCreateRequire(import.meta.url);` },
    // As tsx runs the sources: a class or function keeps its name.
    keepNames: true,
    sourcemap: "linked",
    sourcesContent: false,
    metafile: true,
    logLevel: "warning"
  })
  await mkdir(path.join(out, "migrations"))
  const migrations = (await readdir(path.join(ROOT, MIGRATIONS))).filter((file) => file.endsWith(".sql"))
  for (const file of migrations) await copyFile(path.join(ROOT, MIGRATIONS, file), path.join(out, "migrations", file))
  await writeEmbeddedTemplate(out, migrations)
  const manifest: BuildManifest = {
    startedAt,
    inputs: [
      ...Object.keys(result.metafile.inputs).filter((input) => !input.startsWith(LAUNCHER)),
      ...migrations.map((file) => `${MIGRATIONS}/${file}`),
      "node_modules/.package-lock.json"
    ].sort()
  }
  await writeFile(path.join(out, MANIFEST_FILE), `${JSON.stringify(manifest, null, 1)}\n`)
  await putInPlace(out)
}

/** Moves the new build to dist/ and removes the one it replaces; another build doing the same meanwhile (two test runs) makes it try again. */
const putInPlace = async (out: string): Promise<void> => {
  const old = path.join(ROOT, `.dist-old-${process.pid}`)
  for (let attempt = 1; ; attempt++) {
    await rename(DIST, old).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw error
    })
    try {
      await rename(out, DIST)
      break
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (attempt >= 5 || (code !== "ENOTEMPTY" && code !== "EEXIST")) throw error
    } finally {
      await rm(old, { recursive: true, force: true })
    }
  }
}

/** Builds dist/ when it is missing or older than its sources (the tests and the benchmarks, before they start processes). */
export const buildIfStale = async (): Promise<boolean> => {
  if (buildProblem(DIST) === undefined) return false
  await build()
  return true
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const started = Date.now()
  await build()
  console.log(`Built ${relative(DIST)}/ in ${((Date.now() - started) / 1000).toFixed(1)} s`)
}
