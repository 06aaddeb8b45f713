// The worker run from source (npm run dev, the tests' own threads): worker threads do not inherit
// tsx's module hooks on Node 20, so register them here, then load the TypeScript worker. Built,
// the thread runs its bundle in dist/ instead (shared/build/modulePaths.ts).
import { register } from "tsx/esm/api"

register()
await import("./httpWorker.ts")
