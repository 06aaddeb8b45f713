import { Config, Effect, Result } from "effect"
import { isIP } from "node:net"
import * as path from "node:path"
import { EMAIL } from "../email.ts"
import { refusal } from "./refusal.ts"

/**
 * How one environment variable becomes a setting, as an effect Config: each reader reads its
 * variable from the ConfigProvider in context, applies its default when the variable is unset,
 * empty or blank, and refuses a bad value with one line naming the variable. The settings
 * (ListenSettings, WebhookSettings, …) are made of these.
 */

/** A variable's value, trimmed; undefined when unset, empty or blank. */
export const text = (name: string): Config.Config<string | undefined> =>
  Config.String(name).pipe(
    Config.map((value) => (value.trim() === "" ? undefined : value.trim())),
    Config.withDefault(undefined)
  )

/** A variable's value, trimmed and lower-cased (names, keywords); undefined when unset or blank. */
const lowerText = (name: string) => Config.map(text(name), (value) => value?.toLowerCase())

/** A variable parsed by `parse`: its value, or the detail of its refusal. */
export const parsed = <R, A>(
  name: string,
  raw: Config.Config<R>,
  parse: (raw: R) => Result.Result<A, string>
): Config.Config<A> =>
  Config.mapEffect(raw, (value) => Effect.mapError(Effect.fromResult(parse(value)), (detail) => refusal(name, detail)))

const got = (raw: string) => `(got ${JSON.stringify(raw)})`

export const HOSTNAME = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/

/** A path, resolved against the working directory; `fallback` when unset. */
export const directory = (name: string, fallback: Config.Config<string>): Config.Config<string> =>
  Config.flatMap(text(name), (raw) => Config.map(raw === undefined ? fallback : Config.succeed(raw), (dir) => path.resolve(dir)))

export const port = (name: string, fallback: number): Config.Config<number> =>
  parsed(name, text(name), (raw) => {
    if (raw === undefined) return Result.succeed(fallback)
    if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535) return Result.fail(`must be a port number from 0 to 65535 ${got(raw)}`)
    return Result.succeed(Number(raw))
  })

/** A URL with one of `schemes`, as written; undefined when unset. */
export const url = (name: string, schemes: ReadonlyArray<string>): Config.Config<string | undefined> =>
  parsed(name, text(name), (raw) => {
    if (raw === undefined) return Result.succeed(undefined)
    let parsedUrl: URL
    try {
      parsedUrl = new URL(raw)
    } catch {
      return Result.fail(`must be a URL ${got(raw)}`)
    }
    if (!schemes.includes(parsedUrl.protocol.slice(0, -1))) return Result.fail(`must use one of the schemes ${schemes.join(", ")} ${got(raw)}`)
    return Result.succeed(raw)
  })

/** An http(s) URL's origin (scheme, host, port); undefined when unset. */
export const origin = (name: string): Config.Config<string | undefined> =>
  Config.map(url(name, ["http", "https"]), (raw) => (raw === undefined ? undefined : new URL(raw).origin))

export const positiveNumber = (name: string, fallback: number): Config.Config<number> =>
  parsed(name, text(name), (raw) => {
    if (raw === undefined) return Result.succeed(fallback)
    const value = Number(raw)
    return !Number.isFinite(value) || value <= 0 ? Result.fail(`must be a positive number ${got(raw)}`) : Result.succeed(value)
  })

const wholeNumber = (raw: string): Result.Result<number, string> =>
  !/^\d+$/.test(raw) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))
    ? Result.fail(`must be a whole number of 1 or more ${got(raw)}`)
    : Result.succeed(Number(raw))

export const positiveInteger = (name: string, fallback: number): Config.Config<number> =>
  parsed(name, text(name), (raw) => (raw === undefined ? Result.succeed(fallback) : wholeNumber(raw)))

export const nonNegativeNumber = (name: string, fallback: number): Config.Config<number> =>
  parsed(name, text(name), (raw) => {
    if (raw === undefined) return Result.succeed(fallback)
    const value = Number(raw)
    return !Number.isFinite(value) || value < 0 ? Result.fail(`must be a number of 0 or more ${got(raw)}`) : Result.succeed(value)
  })

/** A thread count: a whole number, `0` (none), or `auto` and unset: `whenAuto`. */
export const threadCount = (name: string, whenAuto: number): Config.Config<number> =>
  parsed(name, text(name), (raw) => {
    if (raw === undefined || raw === "auto") return Result.succeed(whenAuto)
    if (raw === "0") return Result.succeed(0)
    return wholeNumber(raw)
  })

/** JetStream keeps 1 to 5 replicas of a stream. */
export const replicas = (name: string, fallback: number): Config.Config<number> =>
  parsed(name, text(name), (raw) => {
    if (raw === undefined) return Result.succeed(fallback)
    return /^[1-5]$/.test(raw) ? Result.succeed(Number(raw)) : Result.fail(`must be a whole number from 1 to 5 ${got(raw)}`)
  })

/** Off unless set to 1, true or yes (any case); 0, false and no are off too. */
export const flag = (name: string): Config.Config<boolean> =>
  parsed(name, lowerText(name), (raw) => {
    if (raw === undefined || raw === "0" || raw === "false" || raw === "no") return Result.succeed(false)
    if (raw === "1" || raw === "true" || raw === "yes") return Result.succeed(true)
    return Result.fail(`must be true or false ${got(raw)}`)
  })

/** One of `choices` (any case), lower-cased; undefined when unset. */
export const oneOf = <const C extends string>(name: string, choices: ReadonlyArray<C>): Config.Config<C | undefined> =>
  parsed(name, lowerText(name), (raw) =>
    raw === undefined || choices.includes(raw as C)
      ? Result.succeed(raw as C | undefined)
      : Result.fail(`must be ${choices.join(" or ")} ${got(raw)}`))

/** A raw value that must match `pattern`; undefined when unset. */
const matching = <T extends string | undefined>(name: string, raw: Config.Config<T>, pattern: RegExp, what: string): Config.Config<T> =>
  parsed(name, raw, (value) => (value === undefined || pattern.test(value) ? Result.succeed(value) : Result.fail(`must be ${what} ${got(value)}`)))

export const hostName = (name: string) => matching(name, lowerText(name), HOSTNAME, "a host name")

export const headerName = (name: string) => matching(name, lowerText(name), /^[a-z0-9-]+$/, "an HTTP header name")

export const ipv4 = (name: string) => matching(name, text(name), IPV4, "an IPv4 address")

export const email = (name: string) => matching(name, lowerText(name), EMAIL, "an email address")

/** A name of 1 to 64 letters, digits, '-' or '_' (a JetStream object store's); `fallback` when unset. */
export const bucketName = (name: string, fallback: string): Config.Config<string> =>
  matching(name, Config.map(text(name), (raw) => raw ?? fallback), /^[A-Za-z0-9_-]{1,64}$/, "1 to 64 letters, digits, '-' or '_'")

/** An id of 1 to 64 letters, digits, '.', '_' or '-'; undefined when unset. */
export const identifier = (name: string) => matching(name, text(name), /^[A-Za-z0-9_.-]{1,64}$/, "1 to 64 letters, digits, '.', '_' or '-'")

/** host:port entries as Node's resolver takes them: `1.2.3.4`, `1.2.3.4:53`, `::1`, `[::1]:53`. */
export const dnsServers = (name: string): Config.Config<ReadonlyArray<string>> =>
  parsed(name, text(name), (raw) => {
    if (raw === undefined) return Result.succeed([])
    const servers = raw.split(",").map((entry) => entry.trim())
    const bad = servers.find((server) => !validDnsServer(server))
    return bad === undefined
      ? Result.succeed(servers)
      : Result.fail(`must be a comma-separated list of IP or IP:port entries ${got(bad)}`)
  })

const validDnsServer = (server: string): boolean => {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(server)
  const v4 = /^([^:]+)(?::(\d{1,5}))?$/.exec(server)
  const [address, port] = bracketed !== null
    ? [bracketed[1], bracketed[2]]
    : v4 !== null
    ? [v4[1], v4[2]]
    : [server, undefined]
  const family = isIP(address)
  return (bracketed !== null ? family === 6 : v4 !== null ? family === 4 : family === 6) && Number(port ?? 53) <= 65535
}
