import * as path from "node:path"

/**
 * Everything Ricochet reads from the environment, parsed once at start. A bad value is reported
 * as one line naming the variable, so an operator can fix it without reading a stack trace.
 */
export interface RicochetConfig {
  readonly dataDir: string
  readonly apiPort: number
  readonly enginePort: number
  readonly listenHost: string
  readonly shortDomain: string
  readonly linkScheme: "http" | "https"
  readonly databaseUrl: string | undefined
  readonly natsUrl: string | undefined
  /** Take the client address from X-Forwarded-For (only behind a proxy you run). */
  readonly trustProxy: boolean
}

export class ConfigError extends Error {
  constructor(readonly variable: string, detail: string) {
    super(`${variable} ${detail}`)
    this.name = "ConfigError"
  }
}

type Env = Readonly<Record<string, string | undefined>>

const HOSTNAME = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/

const nonEmpty = (env: Env, name: string): string | undefined => {
  const value = env[name]
  return value === undefined || value.trim() === "" ? undefined : value.trim()
}

const port = (env: Env, name: string, fallback: number): number => {
  const raw = nonEmpty(env, name)
  if (raw === undefined) return fallback
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535) {
    throw new ConfigError(name, `must be a port number from 0 to 65535 (got ${JSON.stringify(raw)})`)
  }
  return Number(raw)
}

const url = (env: Env, name: string, schemes: ReadonlyArray<string>): string | undefined => {
  const raw = nonEmpty(env, name)
  if (raw === undefined) return undefined
  let parsed: URL
  try {
    parsed = new URL(raw)
  } catch {
    throw new ConfigError(name, `must be a URL (got ${JSON.stringify(raw)})`)
  }
  if (!schemes.includes(parsed.protocol.slice(0, -1))) {
    throw new ConfigError(name, `must use one of the schemes ${schemes.join(", ")} (got ${JSON.stringify(raw)})`)
  }
  return raw
}

const bool = (env: Env, name: string): boolean => {
  const raw = nonEmpty(env, name)?.toLowerCase()
  if (raw === undefined || raw === "0" || raw === "false" || raw === "no") return false
  if (raw === "1" || raw === "true" || raw === "yes") return true
  throw new ConfigError(name, `must be true or false (got ${JSON.stringify(raw)})`)
}

export const loadConfig = (env: Env = process.env): RicochetConfig => {
  const shortDomain = (nonEmpty(env, "RICOCHET_SHORT_DOMAIN") ?? "localhost").toLowerCase()
  if (!HOSTNAME.test(shortDomain)) {
    throw new ConfigError("RICOCHET_SHORT_DOMAIN", `must be a host name such as short.example.com (got ${JSON.stringify(shortDomain)})`)
  }
  const scheme = nonEmpty(env, "RICOCHET_LINK_SCHEME") ?? "https"
  if (scheme !== "http" && scheme !== "https") {
    throw new ConfigError("RICOCHET_LINK_SCHEME", `must be http or https (got ${JSON.stringify(scheme)})`)
  }
  const listenHost = nonEmpty(env, "RICOCHET_LISTEN_HOST") ?? "0.0.0.0"
  return {
    dataDir: path.resolve(nonEmpty(env, "RICOCHET_DATA_DIR") ?? "./data"),
    apiPort: port(env, "RICOCHET_API_PORT", 3000),
    enginePort: port(env, "RICOCHET_ENGINE_PORT", 8080),
    listenHost,
    shortDomain,
    linkScheme: scheme,
    databaseUrl: url(env, "DATABASE_URL", ["postgres", "postgresql"]),
    natsUrl: url(env, "NATS_URL", ["nats", "tls", "ws", "wss"]),
    trustProxy: bool(env, "RICOCHET_TRUST_PROXY")
  }
}
