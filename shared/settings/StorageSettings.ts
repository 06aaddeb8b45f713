import { Config, Context } from "effect"
import { directory, positiveNumber, url } from "./readers.ts"
import { settingsLayer } from "./settingsLayer.ts"

/** Where the data lives: the data directory (the embedded database, the admin channel, the clicks' default) and PostgreSQL. */
export class StorageSettings extends Context.Service<StorageSettings, {
  readonly dataDir: string
  /** PostgreSQL; unset: the embedded database in the data directory. */
  readonly databaseUrl: string | undefined
  /**
   * Control: the longest a database call may take before the API answers 503 (also the server's
   * statement timeout and the connect timeout of control's pool).
   */
  readonly databaseTimeoutSeconds: number
}>()("ricochet/StorageSettings") {}

export const dataDir = directory("RICOCHET_DATA_DIR", Config.succeed("./data"))
export const databaseUrl = url("DATABASE_URL", ["postgres", "postgresql"])

export const storageSettings: Config.Config<StorageSettings["Service"]> = Config.all({
  dataDir,
  databaseUrl,
  databaseTimeoutSeconds: positiveNumber("RICOCHET_DB_TIMEOUT_SECONDS", 5)
})

export const StorageSettingsLayer = settingsLayer(StorageSettings, storageSettings)
