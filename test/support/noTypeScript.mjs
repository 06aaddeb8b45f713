// Preloaded in a process and in each of its threads (NODE_OPTIONS="--import=…/noTypeScript.mjs"):
// a process that should run its build fails on the first TypeScript file or tsx module it would
// load, naming it (test/integration/builtRuntime.test.ts). A worker thread runs the preload of its
// own, so its imports are watched too.
import { register } from "node:module"

register("./noTypeScriptHooks.mjs", import.meta.url)
