import { createHmac, timingSafeEqual } from "node:crypto"

/**
 * Unlock cookies for password-protected links: `{expiry}.{hmac}`, the HMAC binding link id,
 * the current password hash and the expiry. Changing the password invalidates every cookie;
 * a cookie for one link opens no other. Engines share the secret through the database.
 */
export const UNLOCK_TTL_SECONDS = 24 * 3600

export const cookieName = (linkId: string): string => `ricochet_unlock_${linkId}`

const mac = (secret: string, linkId: string, passwordHash: string, expiry: number): string =>
  createHmac("sha256", secret).update(`${linkId}\n${passwordHash}\n${expiry}`).digest("base64url")

export const signUnlock = (secret: string, linkId: string, passwordHash: string, nowMs: number): string => {
  const expiry = Math.floor(nowMs / 1000) + UNLOCK_TTL_SECONDS
  return `${expiry}.${mac(secret, linkId, passwordHash, expiry)}`
}

export const verifyUnlock = (secret: string, linkId: string, passwordHash: string, value: string | undefined, nowMs: number): boolean => {
  if (value === undefined) return false
  const dot = value.indexOf(".")
  if (dot <= 0) return false
  const expiry = Number(value.slice(0, dot))
  if (!Number.isInteger(expiry) || expiry * 1000 < nowMs) return false
  const given = Buffer.from(value.slice(dot + 1))
  const expected = Buffer.from(mac(secret, linkId, passwordHash, expiry))
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/** One cookie's value from a Cookie header, without parsing the others. */
export const readCookie = (header: string, name: string): string | undefined => {
  if (header === "") return undefined
  for (const part of header.split(";")) {
    const eq = part.indexOf("=")
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

/**
 * Where the password form counts wrong guesses. One count per engine process: with HTTP workers
 * the main thread keeps it and the workers ask (engine/workers/), so a guesser gains nothing by
 * opening new connections.
 */
export interface PasswordAttempts {
  readonly blocked: (key: string) => boolean | Promise<boolean>
  /** Resolves once the guess is counted, so the answer to it is sent only then. */
  readonly failed: (key: string) => void | Promise<void>
}

/** The count kept on this thread. */
export const localAttempts = (limiter = new AttemptLimiter()): PasswordAttempts => ({
  blocked: (key) => limiter.blocked(key, Date.now()),
  failed: (key) => limiter.fail(key, Date.now())
})

/**
 * Failed password attempts per link and client address, in fixed one-minute windows: five
 * wrong guesses a minute, then the form refuses until the window ends. Per engine process.
 */
export class AttemptLimiter {
  private window = 0
  private counts = new Map<string, number>()
  constructor(private readonly limit = 5, private readonly windowMs = 60_000) {}

  private roll(nowMs: number) {
    const window = Math.floor(nowMs / this.windowMs)
    if (window !== this.window) {
      this.window = window
      this.counts = new Map()
    }
  }

  blocked(key: string, nowMs: number): boolean {
    this.roll(nowMs)
    return (this.counts.get(key) ?? 0) >= this.limit
  }

  fail(key: string, nowMs: number): void {
    this.roll(nowMs)
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1)
  }
}
