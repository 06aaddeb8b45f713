import { Context } from "effect"
import { isIP } from "node:net"
import { availableParallelism } from "node:os"
import * as path from "node:path"
import { EMAIL } from "./email.ts"

/**
 * Everything Ricochet reads from the environment, parsed once at start. A bad value is reported
 * as one line naming the variable, so an operator can fix it without reading a stack trace.
 */
export interface RicochetConfig {
  readonly dataDir: string
  readonly apiPort: number
  readonly enginePort: number
  readonly listenHost: string
  /** The engine's operator port (/healthz, /readyz, /metrics) and its address; 0 picks a free port. */
  readonly engineAdminHost: string
  readonly engineAdminPort: number
  /** Control's operator port (/healthz, /readyz, /metrics) and its address; 0 picks a free port. */
  readonly controlAdminHost: string
  readonly controlAdminPort: number
  readonly shortDomain: string
  readonly linkScheme: "http" | "https"
  /**
   * The port written into `shortLink` (and so what visitors type); undefined for the scheme's own.
   * Only the local default sets it: links must open on the engine's port with no proxy in front.
   */
  readonly linkPort: number | undefined
  readonly databaseUrl: string | undefined
  /**
   * Control: the longest a database call may take before the API answers 503 (also the server's
   * statement timeout and the connect timeout of control's pool).
   */
  readonly databaseTimeoutSeconds: number
  readonly natsUrl: string | undefined
  /** Take the client address from the last X-Forwarded-For entry (only behind a proxy you run). */
  readonly trustProxy: boolean
  /** RICOCHET_LOG_FORMAT; unset: pretty on a terminal, JSON otherwise (shared/logging). */
  readonly logFormat: "json" | "pretty" | undefined
  /** Control: one log line per API request (RICOCHET_ACCESS_LOG). */
  readonly accessLog: boolean
  /** Control: an API request answered later than this many milliseconds is logged; 0 logs none. */
  readonly slowRequestMs: number
  /** Control: the first start's admin user signs in with this email. */
  readonly adminEmail: string
  /** Control: a session unused this long is over. */
  readonly sessionIdleHours: number
  /**
   * Control: the origin people reach the API and dashboard at (behind a proxy, say); cookie
   * sessions' unsafe requests may come from it besides the request's own host, its scheme decides
   * the cookie's Secure flag, and the first start prints it as the sign-in URL.
   */
  readonly publicOrigin: string | undefined
  /** Custom domains: CNAME target for subdomain hosts, A record address for apex hosts. */
  readonly cnameTarget: string
  readonly aTarget: string | undefined
  /** DNS servers for domain verification and webhook deliveries (host:port); the system resolver when empty. */
  readonly dnsServers: ReadonlyArray<string>
  /** A pending domain still wrong after this long becomes failed. */
  readonly domainGraceHours: number
  /** How often each custom domain is re-checked. */
  readonly domainRecheckSeconds: number
  /** Engine: trusted header carrying the visitor's country (e.g. cf-ipcountry). */
  readonly geoHeader: string | undefined
  /** Engine: MMDB country database (default: the bundled CC0 one); city database if any. */
  readonly geoipCountryDb: string | undefined
  readonly geoipCityDb: string | undefined
  /** Engine: uWebSockets.js apps in worker threads on the one port (0: served on the main thread). */
  readonly engineWorkers: number
  /** Engine cache bounds (shared out among the workers) and the TTL that bounds staleness when the bus is down. */
  readonly cacheMaxLinks: number
  readonly cacheMaxMegabytes: number
  readonly cacheTtlSeconds: number
  /** Click pipeline: Parquet files, the engine's spool, its id, fsync and roll cadence. */
  readonly clicksDir: string
  readonly spoolDir: string
  readonly engineId: string | undefined
  readonly spoolFsyncMs: number
  readonly rollSeconds: number
  /** What the engine keeps in memory while its spool's disk refuses writes; beyond it clicks are dropped (counted). */
  readonly spoolBufferClicks: number
  readonly spoolBufferMegabytes: number
  /**
   * How Parquet click files travel from engines to controls: `directory` (engines write into
   * `clicksDir`, which controls read: one machine, or a shared volume) or `bucket` (engines put
   * each sealed file into a NATS JetStream object store and controls mirror it into their own
   * `clicksDir`; no shared path). The bucket is never chosen by default (see clicksTransport).
   */
  readonly clicksTransport: "directory" | "bucket"
  /** Bucket transport: the object store's name and its replicas (3 in a three-node cluster). */
  readonly clicksBucket: string
  readonly clicksReplicas: number
  /** Bucket transport: bytes of sealed files an engine keeps waiting for the bucket; beyond it new clicks are refused (counted dropped). */
  readonly clicksOutboxBytes: number
  /** Control: how often finished hours are compacted, and how long an hour settles first. */
  readonly compactSeconds: number
  readonly compactSettleSeconds: number
  /** Webhooks: accept http://127.0.0.1 / localhost receivers (tests, local tools); else https to public addresses only. */
  readonly webhooksAllowLoopback: boolean
  /** Webhooks: the first retry's delay; each next one doubles, up to an hour, for 24 hours. */
  readonly webhookRetryBaseSeconds: number
  /** Control: threads drawing QR codes, off the event loop (control/links/qr/QrRenderPool.ts). */
  readonly qrWorkers: number
  /** Control: QR renders that may wait for a thread, all workspaces together; a workspace may hold a quarter of them. */
  readonly qrQueue: number
  /** Webhooks: pending deliveries kept per webhook (paused, disabled or failing); past it the oldest are dropped. */
  readonly webhookBacklog: number
}

/** The parsed configuration as a service, so tests can provide their own. */
export class Configuration extends Context.Service<Configuration, RicochetConfig>()("ricochet/Configuration") {}

export class ConfigError extends Error {
  constructor(readonly variable: string, detail: string) {
    super(`${variable} ${detail}`)
    this.name = "ConfigError"
  }
}

type Env = Readonly<Record<string, string | undefined>>

const HOSTNAME = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/

const logFormat = (env: Env, name: string): "json" | "pretty" | undefined => {
  const value = nonEmpty(env, name)?.toLowerCase()
  if (value === undefined || value === "json" || value === "pretty") return value
  throw new ConfigError(name, `must be json or pretty (got ${JSON.stringify(value)})`)
}

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

const positiveNumber = (env: Env, name: string, fallback: number): number => {
  const raw = nonEmpty(env, name)
  if (raw === undefined) return fallback
  const value = Number(raw)
  if (!Number.isFinite(value) || value <= 0) throw new ConfigError(name, `must be a positive number (got ${JSON.stringify(raw)})`)
  return value
}

const positiveInteger = (env: Env, name: string, fallback: number): number => {
  const raw = nonEmpty(env, name)
  if (raw === undefined) return fallback
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))) {
    throw new ConfigError(name, `must be a whole number of 1 or more (got ${JSON.stringify(raw)})`)
  }
  return Number(raw)
}

/**
 * QR render threads: one per core but one (the event loop keeps a core), at least one and at
 * most two, as a few codes a second is plenty and each thread holds its own memory.
 */
const defaultQrWorkers = () => Math.max(1, Math.min(2, availableParallelism() - 1))

/** A whole number of HTTP worker threads, `0` to serve on the main thread, or `auto` (the default): one per core. */
const engineWorkers = (env: Env, name: string): number => {
  const raw = nonEmpty(env, name)
  if (raw === "auto") return availableParallelism()
  if (raw === "0") return 0
  return positiveInteger(env, name, availableParallelism())
}

const nonNegativeNumber = (env: Env, name: string, fallback: number): number => {
  const raw = nonEmpty(env, name)
  if (raw === undefined) return fallback
  const value = Number(raw)
  if (!Number.isFinite(value) || value < 0) throw new ConfigError(name, `must be a number of 0 or more (got ${JSON.stringify(raw)})`)
  return value
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/

/** host:port entries as Node's resolver takes them: `1.2.3.4`, `1.2.3.4:53`, `::1`, `[::1]:53`. */
const dnsServers = (env: Env, name: string): Array<string> => {
  const raw = nonEmpty(env, name)
  if (raw === undefined) return []
  return raw.split(",").map((entry) => {
    const server = entry.trim()
    const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(server)
    const v4 = /^([^:]+)(?::(\d{1,5}))?$/.exec(server)
    const [address, port] = bracketed !== null
      ? [bracketed[1], bracketed[2]]
      : v4 !== null
      ? [v4[1], v4[2]]
      : [server, undefined]
    const family = isIP(address)
    const valid = (bracketed !== null ? family === 6 : v4 !== null ? family === 4 : family === 6) && Number(port ?? 53) <= 65535
    if (!valid) throw new ConfigError(name, `must be a comma-separated list of IP or IP:port entries (got ${JSON.stringify(server)})`)
    return server
  })
}

const bool = (env: Env, name: string): boolean => {
  const raw = nonEmpty(env, name)?.toLowerCase()
  if (raw === undefined || raw === "0" || raw === "false" || raw === "no") return false
  if (raw === "1" || raw === "true" || raw === "yes") return true
  throw new ConfigError(name, `must be true or false (got ${JSON.stringify(raw)})`)
}

const hostName = (env: Env, name: string): string | undefined => {
  const raw = nonEmpty(env, name)?.toLowerCase()
  if (raw !== undefined && !HOSTNAME.test(raw)) throw new ConfigError(name, `must be a host name (got ${JSON.stringify(raw)})`)
  return raw
}

const headerName = (env: Env, name: string): string | undefined => {
  const raw = nonEmpty(env, name)?.toLowerCase()
  if (raw !== undefined && !/^[a-z0-9-]+$/.test(raw)) throw new ConfigError(name, `must be an HTTP header name (got ${JSON.stringify(raw)})`)
  return raw
}

const engineId = (env: Env, name: string): string | undefined => {
  const raw = nonEmpty(env, name)
  if (raw !== undefined && !/^[A-Za-z0-9_.-]{1,64}$/.test(raw)) {
    throw new ConfigError(name, `must be 1 to 64 letters, digits, '.', '_' or '-' (got ${JSON.stringify(raw)})`)
  }
  return raw
}

/**
 * RICOCHET_CLICKS_TRANSPORT, `directory` unless set: an installation that adds NATS for the change
 * bus keeps its clicks where they were, and one bucket is never filled by installations that only
 * happen to share a NATS server. `bucket` needs NATS_URL.
 */
const clicksTransport = (env: Env, name: string, natsUrl: string | undefined): "directory" | "bucket" => {
  const raw = nonEmpty(env, name)?.toLowerCase()
  if (raw === undefined || raw === "directory") return "directory"
  if (raw !== "bucket") throw new ConfigError(name, `must be directory or bucket (got ${JSON.stringify(raw)})`)
  if (natsUrl === undefined) throw new ConfigError(name, "is bucket, which needs NATS_URL (a NATS server with JetStream)")
  return raw
}

/** A JetStream object store name: letters, digits, '-' and '_'. */
const bucketName = (env: Env, name: string, fallback: string): string => {
  const raw = nonEmpty(env, name) ?? fallback
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(raw)) throw new ConfigError(name, `must be 1 to 64 letters, digits, '-' or '_' (got ${JSON.stringify(raw)})`)
  return raw
}

/** JetStream keeps 1 to 5 replicas of a stream. */
const replicas = (env: Env, name: string, fallback: number): number => {
  const raw = nonEmpty(env, name)
  if (raw === undefined) return fallback
  if (!/^[1-5]$/.test(raw)) throw new ConfigError(name, `must be a whole number from 1 to 5 (got ${JSON.stringify(raw)})`)
  return Number(raw)
}

const ipv4 = (env: Env, name: string): string | undefined => {
  const raw = nonEmpty(env, name)
  if (raw !== undefined && !IPV4.test(raw)) throw new ConfigError(name, `must be an IPv4 address (got ${JSON.stringify(raw)})`)
  return raw
}

export { EMAIL }

const email = (env: Env, name: string): string | undefined => {
  const raw = nonEmpty(env, name)?.toLowerCase()
  if (raw !== undefined && !EMAIL.test(raw)) throw new ConfigError(name, `must be an email address (got ${JSON.stringify(raw)})`)
  return raw
}

const origin = (env: Env, name: string): string | undefined => {
  const raw = url(env, name, ["http", "https"])
  return raw === undefined ? undefined : new URL(raw).origin
}

export const loadConfig = (env: Env = process.env): RicochetConfig => {
  const shortDomain = (nonEmpty(env, "RICOCHET_SHORT_DOMAIN") ?? "localhost").toLowerCase()
  if (!HOSTNAME.test(shortDomain)) {
    throw new ConfigError("RICOCHET_SHORT_DOMAIN", `must be a host name such as short.example.com (got ${JSON.stringify(shortDomain)})`)
  }
  const databaseUrl = url(env, "DATABASE_URL", ["postgres", "postgresql"])
  const configuredScheme = nonEmpty(env, "RICOCHET_LINK_SCHEME")
  // The embedded default is a laptop: no TLS and no proxy, so links must work as
  // http://…:enginePort out of the box (and the password cookie must not be Secure).
  const local = configuredScheme === undefined && databaseUrl === undefined
  const scheme = configuredScheme ?? (local ? "http" : "https")
  if (scheme !== "http" && scheme !== "https") {
    throw new ConfigError("RICOCHET_LINK_SCHEME", `must be http or https (got ${JSON.stringify(scheme)})`)
  }
  const listenHost = nonEmpty(env, "RICOCHET_LISTEN_HOST") ?? "0.0.0.0"
  const dataDir = path.resolve(nonEmpty(env, "RICOCHET_DATA_DIR") ?? "./data")
  const enginePort = port(env, "RICOCHET_ENGINE_PORT", 8080)
  const natsUrl = url(env, "NATS_URL", ["nats", "tls", "ws", "wss"])
  return {
    dataDir,
    apiPort: port(env, "RICOCHET_API_PORT", 3000),
    enginePort,
    listenHost,
    engineAdminHost: nonEmpty(env, "RICOCHET_ENGINE_ADMIN_HOST") ?? listenHost,
    engineAdminPort: port(env, "RICOCHET_ENGINE_ADMIN_PORT", 9464),
    controlAdminHost: nonEmpty(env, "RICOCHET_CONTROL_ADMIN_HOST") ?? listenHost,
    controlAdminPort: port(env, "RICOCHET_CONTROL_ADMIN_PORT", 9465),
    shortDomain,
    linkScheme: scheme,
    linkPort: local && enginePort !== 80 && enginePort !== 0 ? enginePort : undefined,
    databaseUrl,
    databaseTimeoutSeconds: positiveNumber(env, "RICOCHET_DB_TIMEOUT_SECONDS", 5),
    natsUrl,
    trustProxy: bool(env, "RICOCHET_TRUST_PROXY"),
    logFormat: logFormat(env, "RICOCHET_LOG_FORMAT"),
    accessLog: bool(env, "RICOCHET_ACCESS_LOG"),
    slowRequestMs: nonNegativeNumber(env, "RICOCHET_SLOW_REQUEST_MS", 1000),
    adminEmail: email(env, "RICOCHET_ADMIN_EMAIL") ?? "admin@localhost",
    sessionIdleHours: positiveNumber(env, "RICOCHET_SESSION_IDLE_HOURS", 168),
    publicOrigin: origin(env, "RICOCHET_PUBLIC_ORIGIN"),
    cnameTarget: hostName(env, "RICOCHET_CNAME_TARGET") ?? shortDomain,
    aTarget: ipv4(env, "RICOCHET_A_TARGET"),
    dnsServers: dnsServers(env, "RICOCHET_DNS_SERVERS"),
    domainGraceHours: positiveNumber(env, "RICOCHET_DOMAIN_GRACE_HOURS", 72),
    domainRecheckSeconds: positiveNumber(env, "RICOCHET_DOMAIN_RECHECK_SECONDS", 45),
    geoHeader: headerName(env, "RICOCHET_GEO_HEADER"),
    geoipCountryDb: nonEmpty(env, "RICOCHET_GEOIP_COUNTRY_DB"),
    geoipCityDb: nonEmpty(env, "RICOCHET_GEOIP_CITY_DB"),
    engineWorkers: engineWorkers(env, "RICOCHET_ENGINE_WORKERS"),
    cacheMaxLinks: Math.floor(positiveNumber(env, "RICOCHET_CACHE_MAX_LINKS", 2_000_000)),
    cacheMaxMegabytes: positiveNumber(env, "RICOCHET_CACHE_MAX_MB", 1024),
    cacheTtlSeconds: positiveNumber(env, "RICOCHET_CACHE_TTL_SECONDS", 60),
    clicksDir: path.resolve(nonEmpty(env, "RICOCHET_CLICKS_DIR") ?? path.join(dataDir, "clicks")),
    spoolDir: path.resolve(nonEmpty(env, "RICOCHET_SPOOL_DIR") ?? path.join(dataDir, "spool")),
    engineId: engineId(env, "RICOCHET_ENGINE_ID"),
    spoolFsyncMs: positiveNumber(env, "RICOCHET_SPOOL_FSYNC_MS", 100),
    rollSeconds: positiveNumber(env, "RICOCHET_ROLL_SECONDS", 2),
    spoolBufferClicks: positiveInteger(env, "RICOCHET_SPOOL_BUFFER_CLICKS", 200_000),
    spoolBufferMegabytes: positiveNumber(env, "RICOCHET_SPOOL_BUFFER_MB", 128),
    clicksTransport: clicksTransport(env, "RICOCHET_CLICKS_TRANSPORT", natsUrl),
    clicksBucket: bucketName(env, "RICOCHET_CLICKS_BUCKET", "ricochet-clicks"),
    clicksReplicas: replicas(env, "RICOCHET_CLICKS_REPLICAS", 1),
    clicksOutboxBytes: Math.floor(positiveNumber(env, "RICOCHET_CLICKS_OUTBOX_MB", 1024) * 1024 * 1024),
    compactSeconds: positiveNumber(env, "RICOCHET_COMPACT_SECONDS", 300),
    compactSettleSeconds: nonNegativeNumber(env, "RICOCHET_COMPACT_SETTLE_SECONDS", 600),
    webhooksAllowLoopback: bool(env, "RICOCHET_WEBHOOKS_ALLOW_LOOPBACK"),
    webhookRetryBaseSeconds: positiveNumber(env, "RICOCHET_WEBHOOK_RETRY_BASE_SECONDS", 5),
    qrWorkers: positiveInteger(env, "RICOCHET_QR_WORKERS", defaultQrWorkers()),
    qrQueue: positiveInteger(env, "RICOCHET_QR_QUEUE", 16),
    webhookBacklog: positiveInteger(env, "RICOCHET_WEBHOOK_BACKLOG", 10_000)
  }
}
