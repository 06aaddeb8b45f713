import { Config } from "effect"
import { oneOf } from "./readers.ts"

/**
 * RICOCHET_LOG_FORMAT; unset: pretty on a terminal, JSON otherwise. Validated with everything else
 * at start; shared/logging reads the variable itself, as it installs the format before anything
 * else runs (and hands it to worker threads through the environment).
 */
export const logSettings = Config.all({ logFormat: oneOf("RICOCHET_LOG_FORMAT", ["json", "pretty"]) })
