/**
 * Files a module reaches at run time beside itself (a worker thread's entry), run from source or
 * built. From source (tsx, vitest) a module's URL is its own `.ts` file; built (`npm run build`),
 * every module is bundled into one of the files of `dist/`, a flat directory, so its URL is that
 * file's and a path relative to the source means nothing there.
 */

/** Whether the module at `moduleUrl` runs from the build (JavaScript in dist/) rather than from its TypeScript source. */
export const runsBuilt = (moduleUrl: string | URL): boolean => !new URL(moduleUrl).pathname.endsWith(".ts")

/**
 * What a worker thread started by the module at `moduleUrl` runs, for the worker whose source is
 * `<worker>.ts` beside it: built, the worker's own bundle `dist/<worker>.js` (scripts/build.ts
 * names every worker bundle after its source); from source, the `<worker>Entry.mjs` beside it,
 * which registers tsx in the thread first (a worker thread does not inherit the hooks on Node 20).
 */
export const workerEntry = (moduleUrl: string | URL, worker: string): URL =>
  runsBuilt(moduleUrl) ? new URL(`./${worker}.js`, moduleUrl) : new URL(`./${worker}Entry.mjs`, moduleUrl)
