import { availableParallelism } from "node:os"
import * as path from "node:path"
import { Effect, Exit, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { QrSettings, QrSettingsLayer } from "../../control/links/qr/QrSettings.ts"
import { ConfigError, loadConfig } from "../../config.ts"
import { environmentLayer } from "../../shared/settings/environment.ts"
import { startupFailureOf } from "../../shared/startup/startupFailure.ts"

const configError = (env: Record<string, string | undefined>): ConfigError => {
  try {
    loadConfig(env)
  } catch (error) {
    if (error instanceof ConfigError) return error
    throw error
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(env)}`)
}

describe("loadConfig defaults", () => {
  it.each<readonly [string, Record<string, string | undefined>]>([
    ["no variables", {}],
    ["empty variables", {
      RICOCHET_DATA_DIR: "",
      RICOCHET_API_PORT: "",
      RICOCHET_ENGINE_PORT: "",
      RICOCHET_SHORT_DOMAIN: "",
      RICOCHET_LINK_SCHEME: "",
      RICOCHET_LISTEN_HOST: "",
      DATABASE_URL: "",
      NATS_URL: "",
      RICOCHET_TRUST_PROXY: ""
    }],
    ["blank variables", { RICOCHET_API_PORT: "  ", RICOCHET_SHORT_DOMAIN: " ", DATABASE_URL: "\t" }],
    ["undefined variables", { RICOCHET_API_PORT: undefined, NATS_URL: undefined }]
  ])("%s", (_case, env) => {
    // toMatchObject: settings added later (DNS checks, …) have defaults of their own.
    expect(loadConfig(env)).toMatchObject({
      dataDir: path.resolve(process.cwd(), "data"),
      apiPort: 3000,
      enginePort: 8080,
      listenHost: "0.0.0.0",
      shortDomain: "localhost",
      linkScheme: "http",
      linkPort: 8080,
      databaseUrl: undefined,
      natsUrl: undefined,
      databaseTimeoutSeconds: 5,
      trustProxy: false,
      engineWorkers: availableParallelism()
    })
  })

  it.each([["4", 4], ["1", 1], ["0", 0], ["auto", availableParallelism()]])("RICOCHET_ENGINE_WORKERS=%s: %i", (value, workers) => {
    expect(loadConfig({ RICOCHET_ENGINE_WORKERS: value }).engineWorkers).toBe(workers)
  })

  it("resolves the data directory to an absolute path", () => {
    expect(path.isAbsolute(loadConfig({}).dataDir)).toBe(true)
  })
})

describe("loadConfig values", () => {
  it.each<readonly [string, Record<string, string>, Record<string, unknown>]>([
    ["absolute data dir", { RICOCHET_DATA_DIR: "/var/lib/ricochet" }, { dataDir: "/var/lib/ricochet" }],
    ["relative data dir", { RICOCHET_DATA_DIR: "state/here" }, { dataDir: path.resolve(process.cwd(), "state/here") }],
    ["api port", { RICOCHET_API_PORT: "4000" }, { apiPort: 4000 }],
    ["api port 0", { RICOCHET_API_PORT: "0" }, { apiPort: 0 }],
    ["api port 65535", { RICOCHET_API_PORT: "65535" }, { apiPort: 65535 }],
    ["api port with spaces", { RICOCHET_API_PORT: " 3001 " }, { apiPort: 3001 }],
    ["engine port", { RICOCHET_ENGINE_PORT: "80" }, { enginePort: 80 }],
    ["short domain", { RICOCHET_SHORT_DOMAIN: "short.example.com" }, { shortDomain: "short.example.com" }],
    ["short domain lower-cased", { RICOCHET_SHORT_DOMAIN: "Short.Example.COM" }, { shortDomain: "short.example.com" }],
    ["short domain with a hyphen", { RICOCHET_SHORT_DOMAIN: "go-to.example" }, { shortDomain: "go-to.example" }],
    ["scheme http", { RICOCHET_LINK_SCHEME: "http" }, { linkScheme: "http" }],
    ["scheme https", { RICOCHET_LINK_SCHEME: "https" }, { linkScheme: "https", linkPort: undefined }],
    ["embedded, no scheme: links on http and the engine's port", { RICOCHET_ENGINE_PORT: "9090" }, { linkScheme: "http", linkPort: 9090 }],
    ["embedded, engine on 80: no port in links", { RICOCHET_ENGINE_PORT: "80" }, { linkScheme: "http", linkPort: undefined }],
    ["embedded, scheme configured: no port in links", { RICOCHET_LINK_SCHEME: "http" }, { linkScheme: "http", linkPort: undefined }],
    ["PostgreSQL, no scheme: https without a port", { DATABASE_URL: "postgres://db/r" }, { linkScheme: "https", linkPort: undefined }],
    ["listen host", { RICOCHET_LISTEN_HOST: "127.0.0.1" }, { listenHost: "127.0.0.1" }],
    ["postgres url", { DATABASE_URL: "postgres://u:p@db:5432/ricochet" }, { databaseUrl: "postgres://u:p@db:5432/ricochet" }],
    ["postgresql url", { DATABASE_URL: "postgresql://db/ricochet" }, { databaseUrl: "postgresql://db/ricochet" }],
    ["database timeout", { RICOCHET_DB_TIMEOUT_SECONDS: "2" }, { databaseTimeoutSeconds: 2 }],
    ["database timeout, fractional", { RICOCHET_DB_TIMEOUT_SECONDS: "0.5" }, { databaseTimeoutSeconds: 0.5 }],
    ["nats url", { NATS_URL: "nats://bus:4222" }, { natsUrl: "nats://bus:4222" }],
    ["nats over tls", { NATS_URL: "tls://bus:4222" }, { natsUrl: "tls://bus:4222" }],
    ["nats over websocket", { NATS_URL: "wss://bus.example" }, { natsUrl: "wss://bus.example" }],
    ...(["1", "true", "TRUE", "yes"] as const).map((v) => [`trust proxy ${v}`, { RICOCHET_TRUST_PROXY: v }, { trustProxy: true }] as const),
    ...(["0", "false", "no"] as const).map((v) => [`trust proxy ${v}`, { RICOCHET_TRUST_PROXY: v }, { trustProxy: false }] as const),
    ["spool buffer defaults", {}, { spoolBufferClicks: 200_000, spoolBufferMegabytes: 128 }],
    ["spool buffer clicks", { RICOCHET_SPOOL_BUFFER_CLICKS: "5000" }, { spoolBufferClicks: 5000 }],
    ["spool buffer megabytes", { RICOCHET_SPOOL_BUFFER_MB: "0.5" }, { spoolBufferMegabytes: 0.5 }],
    [
      "clicks transport defaults: the directory, even with NATS",
      { NATS_URL: "nats://bus:4222" },
      { clicksTransport: "directory", clicksBucket: "ricochet-clicks", clicksReplicas: 1, clicksOutboxBytes: 1024 * 1024 * 1024 }
    ],
    ["clicks through a bucket", { NATS_URL: "nats://bus:4222", RICOCHET_CLICKS_TRANSPORT: "bucket" }, { clicksTransport: "bucket" }],
    ["clicks bucket named, three replicas", { RICOCHET_CLICKS_BUCKET: "clicks_b-2", RICOCHET_CLICKS_REPLICAS: "3" }, { clicksBucket: "clicks_b-2", clicksReplicas: 3 }],
    ["clicks outbox budget", { RICOCHET_CLICKS_OUTBOX_MB: "0.5" }, { clicksOutboxBytes: 512 * 1024 }],
    ["operator ports default", {}, { controlAdminPort: 9465, controlAdminHost: "0.0.0.0", engineAdminPort: 9464, engineAdminHost: "0.0.0.0" }],
    ["operator ports on the listen host", { RICOCHET_LISTEN_HOST: "10.0.0.5" }, { controlAdminHost: "10.0.0.5", engineAdminHost: "10.0.0.5" }],
    ["control operator port", { RICOCHET_CONTROL_ADMIN_PORT: "9500", RICOCHET_CONTROL_ADMIN_HOST: "127.0.0.1" }, { controlAdminPort: 9500, controlAdminHost: "127.0.0.1" }],
    ["request logging defaults", {}, { accessLog: false, slowRequestMs: 1000 }],
    ["access log on", { RICOCHET_ACCESS_LOG: "1" }, { accessLog: true }],
    ["slow requests over 250 ms", { RICOCHET_SLOW_REQUEST_MS: "250" }, { slowRequestMs: 250 }],
    ["no slow-request lines", { RICOCHET_SLOW_REQUEST_MS: "0" }, { slowRequestMs: 0 }]
  ])("%s", (_case, env, expected) => {
    expect(loadConfig(env)).toMatchObject(expected)
  })
})

describe("loadConfig refuses a bad value with one line naming the variable", () => {
  it.each<readonly [string, string]>([
    ["RICOCHET_API_PORT", "abc"],
    ["RICOCHET_API_PORT", "70000"],
    ["RICOCHET_API_PORT", "65536"],
    ["RICOCHET_API_PORT", "-1"],
    ["RICOCHET_API_PORT", "3000.5"],
    ["RICOCHET_API_PORT", "80\n81"],
    ["RICOCHET_ENGINE_PORT", "abc"],
    ["RICOCHET_ENGINE_PORT", "70000"],
    ["RICOCHET_LINK_SCHEME", "ftp"],
    ["RICOCHET_LINK_SCHEME", "HTTPS"],
    ["RICOCHET_SHORT_DOMAIN", "bad_domain!"],
    ["RICOCHET_SHORT_DOMAIN", "-leading.example"],
    ["RICOCHET_SHORT_DOMAIN", "https://short.example"],
    ["RICOCHET_SHORT_DOMAIN", "a..b"],
    ["DATABASE_URL", "mysql://x"],
    ["DATABASE_URL", "not a url"],
    ["NATS_URL", "nope"],
    ["NATS_URL", "http://bus:4222"],
    ["RICOCHET_TRUST_PROXY", "maybe"],
    ["RICOCHET_SPOOL_BUFFER_CLICKS", "0"],
    ["RICOCHET_SPOOL_BUFFER_CLICKS", "0.5"],
    ["RICOCHET_SPOOL_BUFFER_CLICKS", "-3"],
    ["RICOCHET_SPOOL_BUFFER_CLICKS", "lots"],
    ["RICOCHET_SPOOL_BUFFER_MB", "0"],
    ["RICOCHET_SPOOL_BUFFER_MB", "big"],
    ["RICOCHET_CLICKS_TRANSPORT", "nfs"],
    ["RICOCHET_CLICKS_TRANSPORT", "bucket"],
    ["RICOCHET_CLICKS_BUCKET", "a.b"],
    ["RICOCHET_CLICKS_BUCKET", "with space"],
    ["RICOCHET_CLICKS_REPLICAS", "0"],
    ["RICOCHET_CLICKS_REPLICAS", "6"],
    ["RICOCHET_CLICKS_REPLICAS", "two"],
    ["RICOCHET_CLICKS_OUTBOX_MB", "0"],
    ["RICOCHET_CLICKS_OUTBOX_MB", "lots"],
    ["RICOCHET_DB_TIMEOUT_SECONDS", "0"],
    ["RICOCHET_DB_TIMEOUT_SECONDS", "-3"],
    ["RICOCHET_DB_TIMEOUT_SECONDS", "five"],
    ["RICOCHET_ENGINE_WORKERS", "-1"],
    ["RICOCHET_ENGINE_WORKERS", "00"],
    ["RICOCHET_ENGINE_WORKERS", "1.5"],
    ["RICOCHET_ENGINE_WORKERS", "all"],
    ["RICOCHET_CONTROL_ADMIN_PORT", "70000"],
    ["RICOCHET_CONTROL_ADMIN_PORT", "metrics"],
    ["RICOCHET_ACCESS_LOG", "verbose"],
    ["RICOCHET_SLOW_REQUEST_MS", "-1"],
    ["RICOCHET_SLOW_REQUEST_MS", "1s"]
  ])("%s=%j", (variable, value) => {
    const error = configError({ [variable]: value })
    expect(error).toBeInstanceOf(Error)
    expect(error.name).toBe("ConfigError")
    expect(error.variable).toBe(variable)
    expect(error.message.startsWith(`${variable} `)).toBe(true)
    expect(error.message).not.toMatch(/[\r\n]/)
    expect(error.message.length).toBeGreaterThan(variable.length + 5)
  })

  it("names the bad variable even when others are fine", () => {
    const error = configError({ RICOCHET_API_PORT: "3000", RICOCHET_ENGINE_PORT: "abc", DATABASE_URL: "postgres://db/x" })
    expect(error.variable).toBe("RICOCHET_ENGINE_PORT")
  })
})

describe("settings services", () => {
  const qrSettingsFrom = (env: Record<string, string>) =>
    Effect.runSyncExit(Effect.provide(QrSettings, QrSettingsLayer.pipe(Layer.provide(environmentLayer(env)))))

  it("read the ConfigProvider they are given, not the process's environment", () => {
    const exit = qrSettingsFrom({ RICOCHET_QR_QUEUE: "1", RICOCHET_QR_WORKERS: "2" })
    expect(Exit.isSuccess(exit) && exit.value).toEqual({ qrQueue: 1, qrWorkers: 2 })
  })

  it("stop the start with loadConfig's one line when a value is refused", () => {
    const exit = qrSettingsFrom({ RICOCHET_QR_QUEUE: "0" })
    const failure = Exit.isFailure(exit) ? startupFailureOf(exit.cause) : undefined
    expect(failure?.message).toBe(`RICOCHET_QR_QUEUE must be a whole number of 1 or more (got "0")`)
    expect(configError({ RICOCHET_QR_QUEUE: "0" }).message).toBe(failure?.message)
  })
})

describe("refusals say what was expected, as before the settings were split", () => {
  it.each<readonly [Record<string, string>, string]>([
    [{ RICOCHET_API_PORT: "abc" }, `RICOCHET_API_PORT must be a port number from 0 to 65535 (got "abc")`],
    [{ RICOCHET_SHORT_DOMAIN: "A..b" }, `RICOCHET_SHORT_DOMAIN must be a host name such as short.example.com (got "a..b")`],
    [{ RICOCHET_LINK_SCHEME: "HTTPS" }, `RICOCHET_LINK_SCHEME must be http or https (got "HTTPS")`],
    [{ DATABASE_URL: "mysql://x" }, `DATABASE_URL must use one of the schemes postgres, postgresql (got "mysql://x")`],
    [{ RICOCHET_TRUST_PROXY: "Maybe" }, `RICOCHET_TRUST_PROXY must be true or false (got "maybe")`],
    [{ RICOCHET_LOG_FORMAT: "XML" }, `RICOCHET_LOG_FORMAT must be json or pretty (got "xml")`],
    [{ RICOCHET_CLICKS_TRANSPORT: "bucket" }, "RICOCHET_CLICKS_TRANSPORT is bucket, which needs NATS_URL (a NATS server with JetStream)"],
    [{ RICOCHET_DNS_SERVERS: "1.2.3.4, 1.2.3.4:99999" }, `RICOCHET_DNS_SERVERS must be a comma-separated list of IP or IP:port entries (got "1.2.3.4:99999")`],
    [{ RICOCHET_CNAME_TARGET: "x_y" }, `RICOCHET_CNAME_TARGET must be a host name (got "x_y")`],
    [{ RICOCHET_ENGINE_ID: "a b" }, `RICOCHET_ENGINE_ID must be 1 to 64 letters, digits, '.', '_' or '-' (got "a b")`],
    [{ RICOCHET_CLICKS_REPLICAS: "6" }, `RICOCHET_CLICKS_REPLICAS must be a whole number from 1 to 5 (got "6")`],
    [{ RICOCHET_COMPACT_SETTLE_SECONDS: "-1" }, `RICOCHET_COMPACT_SETTLE_SECONDS must be a number of 0 or more (got "-1")`]
  ])("%j", (env, message) => {
    expect(configError(env).message).toBe(message)
  })
})
