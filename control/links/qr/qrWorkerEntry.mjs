// Worker threads do not inherit tsx's module hooks on Node 20: register them here, then load
// the TypeScript worker.
import { register } from "tsx/esm/api"

register()
await import("./qrWorker.ts")
