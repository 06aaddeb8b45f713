import { Context } from "effect"
import type { RicochetConfig } from "../shared/config.ts"

/** The parsed configuration, as a service so tests can provide their own. */
export class ControlConfig extends Context.Service<ControlConfig, RicochetConfig>()("ricochet/ControlConfig") {}
