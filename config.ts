import { Cause, Config, Effect, Exit } from "effect"
import { type ControlOnlySettings, controlOnlySettings } from "./control/settings.ts"
import { type EngineConfig, engineConfig } from "./engine/EngineConfiguration.ts"
import { type Environment, environmentProvider } from "./shared/settings/environment.ts"
import { logSettings } from "./shared/settings/LogSettings.ts"
import { refusedVariable } from "./shared/settings/refusal.ts"

/**
 * Everything Ricochet reads from the environment. Each variable is declared once, as an effect
 * Config, in the settings of the concern that reads it (shared/settings/ for what both halves or
 * the processes' roots read, engine/EngineSettings.ts, control's *Settings.ts beside their
 * services); this is the one place that knows them all, as start-up validates every variable
 * before anything starts. A bad value is reported as one line naming the variable, so an
 * operator can fix it without reading a stack trace. It sits at the root, beside main.ts and
 * cli/, the processes that read it: it knows both halves, which shared/ must not.
 */
export type RicochetConfig = EngineConfig & ControlOnlySettings & Config.Success<typeof logSettings>

/** Every setting, as one Config. */
export const ricochetConfig: Config.Config<RicochetConfig> = Config.map(
  Config.all([engineConfig, controlOnlySettings, logSettings]),
  (groups) => Object.assign({}, ...groups) as RicochetConfig
)

export class ConfigError extends Error {
  constructor(readonly variable: string, detail: string) {
    super(`${variable} ${detail}`)
    this.name = "ConfigError"
  }
}

/**
 * Every setting read from `env`, the first bad variable thrown as a ConfigError. Start-up code
 * (main.ts, the CLI) calls it before anything starts and then installs a ConfigProvider over the
 * same variables (environmentLayer), from which control's services read their own settings.
 */
export const loadConfig = (env: Environment = process.env): RicochetConfig => {
  const exit = Effect.runSyncExit(ricochetConfig.parse(environmentProvider(env)))
  if (Exit.isSuccess(exit)) return exit.value
  const refused = Cause.findErrorOption(exit.cause)
  if (refused._tag === "None") throw Cause.squash(exit.cause)
  const { variable, detail } = refusedVariable(refused.value)
  throw new ConfigError(variable, detail)
}
