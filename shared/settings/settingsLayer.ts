import { type Config, type Context, Effect, Layer } from "effect"
import { StartupFailure } from "../startup/startupFailure.ts"
import { refusedVariable } from "./refusal.ts"

/**
 * A settings service read from the ConfigProvider in context. Start-up has validated every
 * variable before it builds a layer (loadConfig), so a refusal here means a provider other than
 * the one validated; it still stops the start with the one line naming the variable.
 */
export const settingsLayer = <I, S>(service: Context.Key<I, S>, config: Config.Config<S>): Layer.Layer<I, StartupFailure> =>
  Layer.effect(service, Effect.mapError(config, (error) => {
    const { variable, detail } = refusedVariable(error)
    return new StartupFailure({ message: `${variable} ${detail}` })
  }))
