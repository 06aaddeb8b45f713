import { argon2Verify } from "hash-wasm"
import uWS from "uWebSockets.js"
import { forwardedClient } from "../../shared/http/forwarded.ts"
import { SLUG_PATTERN as SLUG } from "../../shared/links/slug.ts"
import { type LinkCache, MISSING } from "../cache/linkCache.ts"
import { SourceUnavailable } from "../cache/sourceGuard.ts"
import type { ClickIntake } from "../clicks/clickChannel.ts"
import type { CompiledDomain, CompiledLink } from "../links/compile.ts"
import type { GeoLookup } from "../geo/geo.ts"
import { appHandOffPage, expiredPage, landingPage, notFoundPage, openGraphPage, passwordPage, unavailablePage } from "../pages/html.ts"
import { AttemptLimiter, cookieName, readCookie, signUnlock, UNLOCK_TTL_SECONDS, verifyUnlock } from "../password/unlock.ts"
import { evaluateLink, type Visit } from "../rules/evaluate.ts"
import { isSocialPreviewCrawler } from "../visitors/socialPreview.ts"
import { parseDevice } from "../visitors/device.ts"

export interface EngineServerOptions {
  readonly host: string
  readonly port: number
  readonly cache: LinkCache
  readonly clicks: ClickIntake
  readonly geo: GeoLookup
  readonly secret: string
  readonly trustProxy: boolean
  /** Scheme visitors used, for Secure cookies: "https" behind TLS termination. */
  readonly linkScheme: "http" | "https"
  readonly status: () => unknown
}

const STATUS_LINE: Readonly<Record<number, string>> = {
  200: "200 OK",
  301: "301 Moved Permanently",
  302: "302 Found",
  303: "303 See Other",
  307: "307 Temporary Redirect",
  308: "308 Permanent Redirect",
  400: "400 Bad Request",
  403: "403 Forbidden",
  404: "404 Not Found",
  405: "405 Method Not Allowed",
  410: "410 Gone",
  413: "413 Payload Too Large",
  429: "429 Too Many Requests",
  500: "500 Internal Server Error",
  502: "502 Bad Gateway",
  503: "503 Service Unavailable"
}

const decoder = new TextDecoder()
const HTML = "text/html; charset=utf-8"
const NO_STORE = "private, no-store"
const MAX_FORM_BYTES = 4096

/** Everything read from the request before the handler returns (uWS invalidates `req` then). */
interface Incoming {
  readonly method: string
  readonly host: string
  readonly slug: string
  readonly path: string
  readonly query: string
  readonly userAgent: string
  readonly referer: string
  readonly cookie: string
  readonly geoHeader: string
  readonly signatureAgent: string
  readonly ip: string
}

const isLoopback = (address: string) => address === "127.0.0.1" || address === "::1"

/** A destination the engine will send a visitor to: http(s) and nothing that could split a header. */
const safeLocation = (location: string): boolean => /^(https?|intent):\/\/[^\r\n]*$/i.test(location)

export const startEngineServer = async (options: EngineServerOptions) => {
  const { cache, clicks, geo, secret } = options
  const attempts = new AttemptLimiter()
  let inflight = 0
  let closing = false
  let idle: (() => void) | undefined

  const socketAddress = (res: uWS.HttpResponse): string => {
    const address = decoder.decode(res.getRemoteAddressAsText())
    return address.startsWith("::ffff:") ? address.slice(7) : address
  }

  const read = (res: uWS.HttpResponse, req: uWS.HttpRequest): Incoming => {
    const rawHost = req.getHeader("host")
    const colon = rawHost.lastIndexOf(":")
    const host = (colon > 0 && !rawHost.endsWith("]") ? rawHost.slice(0, colon) : rawHost).toLowerCase()
    const path = req.getUrl()
    const slug = path.length > 1 && path.endsWith("/") ? path.slice(1, -1) : path.slice(1)
    // Behind a trusted proxy its header names the visitor, and the socket address (which costs
    // uWS.js an ArrayBuffer, over a microsecond) is not needed.
    const ip = (options.trustProxy ? forwardedClient(req.getHeader("x-forwarded-for")) : undefined) ?? socketAddress(res)
    return {
      method: req.getMethod(),
      host,
      slug,
      path,
      query: req.getQuery() ?? "",
      userAgent: req.getHeader("user-agent"),
      referer: req.getHeader("referer"),
      cookie: req.getHeader("cookie"),
      geoHeader: geo.headerName === undefined ? "" : req.getHeader(geo.headerName),
      signatureAgent: req.getHeader("signature-agent"),
      ip
    }
  }

  const send = (res: uWS.HttpResponse, head: boolean, status: number, headers: ReadonlyArray<readonly [string, string]>, body = "") => {
    res.writeStatus(STATUS_LINE[status] ?? `${status}`)
    for (const [name, value] of headers) res.writeHeader(name, value)
    if (head) {
      // uWS.js 20.30: endWithoutBody(n) with n > 0 leaves the response pending, which aborts the
      // process when it happens inside a request handler. Report the length ourselves instead.
      res.writeHeader("content-length", String(Buffer.byteLength(body)))
      res.endWithoutBody()
    } else res.end(body)
  }

  const page = (res: uWS.HttpResponse, head: boolean, status: number, html: string, extra: ReadonlyArray<readonly [string, string]> = []) =>
    send(res, head, status, [["content-type", HTML], ["cache-control", NO_STORE], ["x-content-type-options", "nosniff"], ...extra], html)

  // The hot path's response: written directly, without send()'s header list.
  const redirect = (res: uWS.HttpResponse, head: boolean, status: number, location: string) => {
    if (!safeLocation(location)) return page(res, head, 502, notFoundPage())
    res.writeStatus(STATUS_LINE[status] ?? `${status}`).writeHeader("location", location).writeHeader("cache-control", NO_STORE)
    if (head) res.writeHeader("content-length", "0").endWithoutBody()
    else res.end()
  }

  /** The visit's facts, each derived only if a rule asks (one object, no closures per request). */
  class RequestVisit implements Visit {
    private device: ReturnType<typeof parseDevice> | undefined
    constructor(private readonly incoming: Incoming, private readonly link: CompiledLink, readonly now: number) {}
    get query() {
      return this.incoming.query
    }
    private deviceInfo() {
      return (this.device ??= parseDevice(this.incoming.userAgent))
    }
    country() {
      return geo.country(this.incoming.ip, this.incoming.geoHeader)
    }
    platform() {
      return this.deviceInfo().platform
    }
    inAndroidInAppBrowser() {
      const device = this.deviceInfo()
      return device.platform === "android" && device.inAppBrowser !== null
    }
    visitorKey() {
      return `${this.incoming.ip}\n${this.incoming.userAgent}`
    }
    previewCrawler() {
      return isSocialPreviewCrawler(this.incoming.userAgent)
    }
    unlocked() {
      const { id, extras } = this.link
      return verifyUnlock(secret, id, extras!.passwordHash!, readCookie(this.incoming.cookie, cookieName(id)), this.now)
    }
  }

  /** design.md steps 1 to 10 once the domain and link are known (from cache or database). */
  const serve = (res: uWS.HttpResponse, incoming: Incoming, domain: CompiledDomain | typeof MISSING, link: CompiledLink | typeof MISSING | null) => {
    const head = incoming.method === "head"
    if (domain === MISSING || !domain.serving) return page(res, head, 404, notFoundPage())
    if (link === null) {
      const root = domain.record.rootRedirectUrl
      return root === null ? page(res, head, 200, landingPage(domain.record.host)) : redirect(res, head, 302, root)
    }
    if (link === MISSING) {
      const fallback = domain.record.notFoundUrl
      return fallback === null ? page(res, head, 404, notFoundPage()) : redirect(res, head, 302, fallback)
    }
    const now = Date.now()
    const decision = evaluateLink(link, new RequestVisit(incoming, link, now), domain.record.expiredUrl)
    switch (decision.kind) {
      case "expired-page":
        return page(res, head, 410, expiredPage())
      case "expired-redirect":
        return redirect(res, head, 302, decision.location)
      case "password-page":
        return page(res, head, 200, passwordPage(incoming.path + (incoming.query ? `?${incoming.query}` : ""), "ask"))
      case "preview-page":
        return page(res, head, 200, openGraphPage({
          title: link.extras!.title,
          description: link.extras!.description,
          image: link.extras!.ogImageUrl,
          url: link.url
        }))
      case "app":
        page(res, head, 200, appHandOffPage(decision.appUrl, decision.location))
        break
      case "redirect":
        redirect(res, head, decision.status, decision.location)
        break
    }
    if (!head) {
      clicks.add({
        timestamp: now,
        workspaceId: link.workspaceId,
        linkId: link.id,
        domain: incoming.host,
        slug: incoming.slug,
        url: decision.destination,
        variant: decision.variant,
        ip: incoming.ip,
        userAgent: incoming.userAgent,
        referer: incoming.referer,
        geoHeader: incoming.geoHeader,
        signatureAgent: incoming.signatureAgent
      })
    }
  }

  /** Runs an async continuation with abort tracking; the response is written corked. */
  const later = (res: uWS.HttpResponse, work: () => Promise<void | ((res: uWS.HttpResponse) => void)>) => {
    let aborted = false
    inflight++
    res.onAborted(() => {
      aborted = true
    })
    work()
      .then((respond) => {
        if (!aborted && respond) res.cork(() => respond(res))
      })
      .catch((error) => {
        // The database is down or hangs and there is no earlier answer (the cache logs the outage).
        const unavailable = error instanceof SourceUnavailable
        if (!unavailable) console.error("engine request failed", error)
        if (!aborted) {
          res.cork(() => unavailable
            ? page(res, false, 503, unavailablePage(), [["retry-after", "5"]])
            : page(res, false, 500, unavailablePage()))
        }
      })
      .finally(() => {
        inflight--
        if (inflight === 0) idle?.()
      })
  }

  const handleGet = (res: uWS.HttpResponse, incoming: Incoming) => {
    const isRoot = incoming.path === "/"
    if (!isRoot && !SLUG.test(incoming.slug)) {
      // Not a slug: nothing to look up; the domain still decides between 404 page and fallback.
      const domain = cache.peekDomain(incoming.host)
      if (domain !== undefined) return serve(res, incoming, domain, MISSING)
      return later(res, async () => {
        const loaded = await cache.loadDomain(incoming.host)
        return (r) => serve(r, incoming, loaded, MISSING)
      })
    }
    const domain = cache.peekDomain(incoming.host)
    let link = isRoot ? null : cache.peekLink(incoming.host, incoming.slug)
    // A slug the domain's filter has never seen does not exist: no database query for scanners.
    if (link === undefined && domain !== undefined && domain !== MISSING && domain.serving &&
      cache.mayExist(incoming.host, incoming.slug) === false) link = MISSING
    // The hot path: both cached, answered synchronously with no await.
    if (domain !== undefined && link !== undefined) return serve(res, incoming, domain, link)
    later(res, async () => {
      const loadedDomain = domain ?? (await cache.loadDomain(incoming.host))
      if (loadedDomain === MISSING || !loadedDomain.serving) return (r) => serve(r, incoming, loadedDomain, MISSING)
      const loadedLink = isRoot ? null : link ?? (await cache.loadLink(incoming.host, incoming.slug))
      return (r) => serve(r, incoming, loadedDomain, loadedLink)
    })
  }

  /** The password form posts back to the short link: verify, set the unlock cookie, send on. */
  const handlePassword = (res: uWS.HttpResponse, incoming: Incoming) => {
    let body = Buffer.alloc(0)
    let tooLarge = false
    later(res, () =>
      new Promise<(r: uWS.HttpResponse) => void>((resolve) => {
        res.onData((chunk, last) => {
          if (!tooLarge) {
            body = Buffer.concat([body, Buffer.from(chunk)])
            if (body.length > MAX_FORM_BYTES) tooLarge = true
          }
          if (!last) return
          if (tooLarge) return resolve((r) => page(r, false, 413, notFoundPage()))
          resolve(verifyPassword(incoming, body.toString("utf8")))
        })
      }).then((p) => p)
    )
  }

  const verifyPassword = async (incoming: Incoming, form: string): Promise<(r: uWS.HttpResponse) => void> => {
    const domain = cache.peekDomain(incoming.host) ?? (await cache.loadDomain(incoming.host))
    const link = SLUG.test(incoming.slug) ? cache.peekLink(incoming.host, incoming.slug) ?? (await cache.loadLink(incoming.host, incoming.slug)) : MISSING
    const passwordHash = link === MISSING ? null : link.extras?.passwordHash ?? null
    if (domain === MISSING || !domain.serving || link === MISSING || passwordHash === null) {
      return (r) => page(r, false, 404, notFoundPage())
    }
    const action = incoming.path + (incoming.query ? `?${incoming.query}` : "")
    const now = Date.now()
    const limiterKey = `${link.id}\n${incoming.ip}`
    if (attempts.blocked(limiterKey, now)) return (r) => page(r, false, 429, passwordPage(action, "limited"), [["retry-after", "60"]])
    const password = new URLSearchParams(form).get("password") ?? ""
    const ok = password !== "" && (await argon2Verify({ password, hash: passwordHash }).catch(() => false))
    if (!ok) {
      attempts.fail(limiterKey, now)
      return (r) => page(r, false, 403, passwordPage(action, "wrong"))
    }
    const cookie = `${cookieName(link.id)}=${signUnlock(secret, link.id, passwordHash, now)}; ` +
      `Path=/${incoming.slug}; Max-Age=${UNLOCK_TTL_SECONDS}; HttpOnly; SameSite=Lax${options.linkScheme === "https" ? "; Secure" : ""}`
    // Back to the short link as a GET: the rules run there and the click is counted once.
    return (r) => send(r, false, 303, [["location", action], ["set-cookie", cookie], ["cache-control", NO_STORE]])
  }

  const app = uWS.App()
  app.any("/*", (res, req) => {
    const incoming = read(res, req)
    if (incoming.path === "/.well-known/ricochet/status" && isLoopback(socketAddress(res))) {
      return send(res, incoming.method === "head", 200, [["content-type", "application/json"]], JSON.stringify(options.status()))
    }
    if (closing) return send(res, false, 500, [["connection", "close"]])
    switch (incoming.method) {
      case "get":
      case "head":
        return handleGet(res, incoming)
      case "post":
        return handlePassword(res, incoming)
      default:
        return send(res, false, 405, [["allow", "GET, HEAD, POST"]])
    }
  })

  const listenSocket = await new Promise<uWS.us_listen_socket>((resolve, reject) =>
    app.listen(options.host, options.port, (token) => (token ? resolve(token) : reject(new Error(`engine could not listen on ${options.host}:${options.port}`))))
  )

  return {
    port: uWS.us_socket_local_port(listenSocket),
    /** Stops accepting, lets in-flight requests finish (up to 10 s), then resolves. */
    stop: async () => {
      closing = true
      uWS.us_listen_socket_close(listenSocket)
      if (inflight > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 10_000)
          idle = () => {
            clearTimeout(timer)
            resolve()
          }
        })
      }
    }
  }
}
