/**
 * NATS_URL as nats.js needs it. nats.js (2.x) ignores credentials in a server URL (and would read
 * a password of digits as the port), so they are taken out of it and given as connect options,
 * the way NATS's own clients read a URL: `nats://user:password@host:4222` is a user and password,
 * `nats://token@host:4222` a token. `shown` is the URL to log, without the secret.
 */
export interface NatsServer {
  readonly servers: string
  readonly credentials: { readonly user: string; readonly pass: string } | { readonly token: string } | undefined
  readonly shown: string
}

export const natsServer = (natsUrl: string): NatsServer => {
  const url = new URL(natsUrl)
  const user = decodeURIComponent(url.username)
  const password = decodeURIComponent(url.password)
  url.username = ""
  url.password = ""
  const servers = url.href
  if (user === "" && password === "") return { servers, credentials: undefined, shown: servers }
  const withUserinfo = (userinfo: string) => `${url.protocol}//${userinfo}@${servers.slice(url.protocol.length + 2)}`
  if (password === "") return { servers, credentials: { token: user }, shown: withUserinfo("[redacted]") }
  return { servers, credentials: { user, pass: password }, shown: withUserinfo(`${encodeURIComponent(user)}:[redacted]`) }
}
