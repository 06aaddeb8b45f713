import { Config, Context } from "effect"
import { port, text } from "./readers.ts"
import { settingsLayer } from "./settingsLayer.ts"

/** Where the processes listen: the API, the engine, and each one's operator port (/healthz, /readyz, /metrics). */
export class ListenSettings extends Context.Service<ListenSettings, {
  readonly listenHost: string
  readonly apiPort: number
  readonly enginePort: number
  /** The engine's operator port and its address; 0 picks a free port. */
  readonly engineAdminHost: string
  readonly engineAdminPort: number
  /** Control's operator port and its address; 0 picks a free port. */
  readonly controlAdminHost: string
  readonly controlAdminPort: number
}>()("ricochet/ListenSettings") {}

export const listenHost = Config.map(text("RICOCHET_LISTEN_HOST"), (host) => host ?? "0.0.0.0")
export const enginePort = port("RICOCHET_ENGINE_PORT", 8080)

/** An operator port's address: its own variable, else the listen host. */
const adminHost = (name: string) => Config.flatMap(text(name), (host) => (host === undefined ? listenHost : Config.succeed(host)))

export const listenSettings: Config.Config<ListenSettings["Service"]> = Config.all({
  listenHost,
  apiPort: port("RICOCHET_API_PORT", 3000),
  enginePort,
  engineAdminHost: adminHost("RICOCHET_ENGINE_ADMIN_HOST"),
  engineAdminPort: port("RICOCHET_ENGINE_ADMIN_PORT", 9464),
  controlAdminHost: adminHost("RICOCHET_CONTROL_ADMIN_HOST"),
  controlAdminPort: port("RICOCHET_CONTROL_ADMIN_PORT", 9465)
})

export const ListenSettingsLayer = settingsLayer(ListenSettings, listenSettings)
