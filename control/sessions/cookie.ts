/** The session cookie: its name, and the Set-Cookie values that set and clear it. */
export const SESSION_COOKIE = "ricochet_session"

/** 43 base62 characters: 256 bits. */
export const SESSION_TOKEN = /^[0-9A-Za-z]{43}$/

// No Max-Age: the browser keeps the cookie for its session; the server ends idle sessions itself.
const attributes = (secure: boolean) => `HttpOnly; SameSite=Lax; Path=/${secure ? "; Secure" : ""}`

export const sessionCookie = (token: string, secure: boolean): string => `${SESSION_COOKIE}=${token}; ${attributes(secure)}`

export const clearedSessionCookie = (secure: boolean): string => `${SESSION_COOKIE}=; ${attributes(secure)}; Max-Age=0`

/** Secure when people reach us over https: the public origin's scheme, else the configured link scheme. */
export const secureCookies = (config: { readonly publicOrigin: string | undefined; readonly linkScheme: "http" | "https" }): boolean =>
  (config.publicOrigin === undefined ? config.linkScheme : new URL(config.publicOrigin).protocol.slice(0, -1)) === "https"
