import { argon2Verify } from "hash-wasm"
import type uWS from "uWebSockets.js"
import { SLUG_PATTERN as SLUG } from "../../shared/links/slug.ts"
import { type LinkCache, MISSING } from "../cache/linkCache.ts"
import { badRequestPage, notFoundPage, passwordPage, payloadTooLargePage } from "../pages/html.ts"
import { REDIRECT_REFERRER_POLICY } from "../pages/securityHeaders.ts"
import { cookieName, type PasswordAttempts, signUnlock, UNLOCK_TTL_SECONDS } from "../password/unlock.ts"
import { type Incoming, selfUrl } from "./incoming.ts"
import type { PendingAnswers, Respond } from "./pendingAnswers.ts"
import { hostKind } from "./requestHost.ts"
import { NO_STORE } from "./redirectHeads.ts"
import type { Responder } from "./respond.ts"

const MAX_FORM_BYTES = 4096

export interface PasswordDeps {
  readonly cache: LinkCache
  readonly secret: string
  /** Scheme visitors used, for Secure cookies: "https" behind TLS termination. */
  readonly linkScheme: "http" | "https"
  readonly pending: PendingAnswers
  readonly attempts: PasswordAttempts
  readonly responder: Responder
}

/** The password form posts back to the short link: verify, set the unlock cookie, send on. */
export const makePasswordHandler = ({ cache, secret, linkScheme, pending, attempts, responder }: PasswordDeps) => {
  const verifyPassword = async (incoming: Incoming, form: string): Promise<Respond> => {
    let domain = cache.peekDomain(incoming.host)
    if (domain === undefined) {
      const kind = hostKind(incoming.host)
      if (kind === "invalid") return (r) => responder.page(r, false, 400, badRequestPage("The Host header is not a host name."))
      domain = kind === "address" ? MISSING : await cache.loadDomain(incoming.host)
    }
    const link = SLUG.test(incoming.slug) ? cache.peekLink(incoming.host, incoming.slug) ?? (await cache.loadLink(incoming.host, incoming.slug)) : MISSING
    const passwordHash = link === MISSING ? null : link.extras?.passwordHash ?? null
    if (domain === MISSING || !domain.serving || link === MISSING || passwordHash === null) {
      return (r) => responder.page(r, false, 404, notFoundPage())
    }
    const action = selfUrl(incoming)
    const limiterKey = `${link.id}\n${incoming.ip}`
    if (await attempts.blocked(limiterKey)) return (r) => responder.page(r, false, 429, passwordPage(action, "limited"), [["retry-after", "60"]])
    const password = new URLSearchParams(form).get("password") ?? ""
    const ok = password !== "" && (await argon2Verify({ password, hash: passwordHash }).catch(() => false))
    if (!ok) {
      await attempts.failed(limiterKey)
      return (r) => responder.page(r, false, 403, passwordPage(action, "wrong"))
    }
    const cookie = `${cookieName(link.id)}=${signUnlock(secret, link.id, passwordHash, Date.now())}; ` +
      `Path=/${incoming.slug}; Max-Age=${UNLOCK_TTL_SECONDS}; HttpOnly; SameSite=Lax${linkScheme === "https" ? "; Secure" : ""}`
    // Back to the short link as a GET: the rules run there and the click is counted once.
    return (r) => responder.send(r, false, 303, [["location", action], ["set-cookie", cookie], ["cache-control", NO_STORE], ["referrer-policy", REDIRECT_REFERRER_POLICY]])
  }

  return (res: uWS.HttpResponse, incoming: Incoming) => {
    let body = Buffer.alloc(0)
    let tooLarge = false
    pending.later(res, false, () =>
      new Promise<Respond>((resolve, reject) => {
        res.onData((chunk, last) => {
          if (!tooLarge) {
            body = Buffer.concat([body, Buffer.from(chunk)])
            if (body.length > MAX_FORM_BYTES) tooLarge = true
          }
          if (!last) return
          // The body is in: from here the answer is pending (see PendingAnswers.later).
          res.pause()
          if (tooLarge) return resolve((r) => responder.page(r, false, 413, payloadTooLargePage()))
          verifyPassword(incoming, body.toString("utf8")).then(resolve, reject)
        })
      }), false)
  }
}
