import { ConfigProvider, Layer } from "effect"

export type Environment = Readonly<Record<string, string | undefined>>

/**
 * The variables as the ConfigProvider every setting is read from. A copy: what start-up validated
 * (loadConfig) and what the services read later are the same values, even if the process changes
 * its own environment meanwhile (installLogging sets RICOCHET_LOG_FORMAT for its threads).
 */
export const environmentProvider = (env: Environment): ConfigProvider.ConfigProvider => ConfigProvider.fromEnvRecord({ ...env })

/** The layer installing that provider, for a process's root (or a test's control). */
export const environmentLayer = (env: Environment): Layer.Layer<never> => ConfigProvider.layer(environmentProvider(env))
