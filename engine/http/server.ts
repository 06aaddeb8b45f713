import { argon2Verify } from "hash-wasm"
import uWS from "uWebSockets.js"
import { forwardedClient } from "../../shared/http/forwarded.ts"
import { SLUG_PATTERN as SLUG } from "../../shared/links/slug.ts"
import { type LinkCache, MISSING } from "../cache/linkCache.ts"
import { SourceUnavailable } from "../cache/sourceGuard.ts"
import type { ClickIntake } from "../clicks/clickChannel.ts"
import type { CompiledDomain, CompiledLink } from "../links/compile.ts"
import type { GeoLookup } from "../geo/geo.ts"
import {
  appHandOffPage,
  badRequestPage,
  errorPage,
  expiredPage,
  landingPage,
  methodNotAllowedPage,
  notFoundPage,
  openGraphPage,
  passwordPage,
  payloadTooLargePage,
  unavailablePage
} from "../pages/html.ts"
import { HANDOFF_PAGE_HEADERS, type Headers, PAGE_HEADERS, REDIRECT_REFERRER_POLICY } from "../pages/securityHeaders.ts"
import { AttemptLimiter, cookieName, readCookie, signUnlock, UNLOCK_TTL_SECONDS, verifyUnlock } from "../password/unlock.ts"
import { evaluateLink, type Visit } from "../rules/evaluate.ts"
import { queryAsSent } from "../rules/query.ts"
import { isSocialPreviewCrawler } from "../visitors/socialPreview.ts"
import { parseDevice } from "../visitors/device.ts"
import { hostKind, requestHost } from "./requestHost.ts"

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

/**
 * A destination the engine will send a visitor to: http(s) (or an Android intent) in printable
 * ASCII, which every compiled destination is (toLocationUrl) and every visitor query is made
 * (queryAsSent): the last guard against a header split or raw bytes in Location.
 */
const safeLocation = (location: string): boolean => /^(?:https?|intent):\/\/[\x21-\x7e]*$/i.test(location)

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
    const host = requestHost(req.getHeader("host"))
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

  const send = (res: uWS.HttpResponse, head: boolean, status: number, headers: Headers, body = "", extra: Headers = []) => {
    res.writeStatus(STATUS_LINE[status] ?? `${status}`)
    for (const [name, value] of headers) res.writeHeader(name, value)
    for (const [name, value] of extra) res.writeHeader(name, value)
    if (head) {
      // uWS.js 20.30: endWithoutBody(n) with n > 0 leaves the response pending, which aborts the
      // process when it happens inside a request handler. Report the length ourselves instead.
      res.writeHeader("content-length", String(Buffer.byteLength(body)))
      res.endWithoutBody()
    } else res.end(body)
  }

  /** A page with its policy headers (securityHeaders.ts), and any `extra` ones. */
  const page = (res: uWS.HttpResponse, head: boolean, status: number, html: string, extra: Headers = [], headers: Headers = PAGE_HEADERS) =>
    send(res, head, status, headers, html, extra)

  // The hot path's response: written directly, without send()'s header list.
  const redirect = (res: uWS.HttpResponse, head: boolean, status: number, location: string) => {
    if (!safeLocation(location)) return page(res, head, 502, errorPage())
    res.writeStatus(STATUS_LINE[status] ?? `${status}`).writeHeader("location", location).writeHeader("cache-control", NO_STORE)
      .writeHeader("referrer-policy", REDIRECT_REFERRER_POLICY)
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
      const root = domain.rootRedirectUrl
      return root === null ? page(res, head, 200, landingPage(domain.record.host)) : redirect(res, head, 302, root)
    }
    if (link === MISSING) {
      const fallback = domain.notFoundUrl
      return fallback === null ? page(res, head, 404, notFoundPage()) : redirect(res, head, 302, fallback)
    }
    const now = Date.now()
    const decision = evaluateLink(link, new RequestVisit(incoming, link, now), domain.expiredUrl)
    switch (decision.kind) {
      case "expired-page":
        return page(res, head, 410, expiredPage())
      case "expired-redirect":
        return redirect(res, head, 302, decision.location)
      case "password-page":
        return page(res, head, 200, passwordPage(selfUrl(incoming), "ask"))
      case "preview-page":
        return page(res, head, 200, openGraphPage({
          title: link.extras!.title,
          description: link.extras!.description,
          image: link.extras!.ogImageUrl,
          url: link.url
        }))
      case "app":
        page(res, head, 200, appHandOffPage(decision.appUrl, decision.location), [], HANDOFF_PAGE_HEADERS)
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

  /**
   * Answers a request whose answer needs an await (a cache miss, the password form): onAborted
   * first, as uWS.js requires, and the response written corked.
   *
   * Pipelining: uWS.js (20.30; uWebSockets' HttpContext.h, "Are we not ready for another request
   * yet? Terminate the connection") closes a connection, without a word and before any handler
   * runs, when it parses a request while an earlier response on it is still pending. So reading
   * the connection is paused until the answer is written: a pipelined request that arrives
   * meanwhile waits in the socket's buffer and is answered after this one, in order. Requests
   * that came in the same read as this one are beyond reach (uWS parses a whole read in one go,
   * before the answer can exist); whatever this request loaded stays in the cache, so a client
   * that sends them again, as RFC 9112 9.3.2 asks of pipelining clients when a connection closes,
   * gets them answered synchronously. (An answer that needs no I/O, such as a cached domain's
   * 404, settles in the microtasks uWS.js runs after each handler, before it parses on.)
   * `paused`: a POST pauses only once its body is in.
   */
  const later = (res: uWS.HttpResponse, head: boolean, work: () => Promise<void | ((res: uWS.HttpResponse) => void)>, paused = true) => {
    let aborted = false
    inflight++
    res.onAborted(() => {
      aborted = true
    })
    if (paused) res.pause()
    work()
      .then((respond) => {
        if (!aborted && respond) {
          res.cork(() => {
            res.resume()
            respond(res)
          })
        }
      })
      .catch((error) => {
        // The database is down or hangs and there is no earlier answer (the cache logs the outage).
        const unavailable = error instanceof SourceUnavailable
        if (!unavailable) console.error("engine request failed", error)
        if (!aborted) answerFailure(res, head, unavailable ? 503 : 500)
      })
      .finally(() => {
        inflight--
        if (inflight === 0) idle?.()
      })
  }

  /** A failure of ours (never a visitor's input): the generic page, if the response can still say anything. */
  const answerFailure = (res: uWS.HttpResponse, head: boolean, status: 500 | 503 = 500) => {
    try {
      res.cork(() => {
        res.resume()
        if (status === 503) page(res, head, 503, unavailablePage(), [["retry-after", "5"]])
        else page(res, head, 500, errorPage())
      })
    } catch {
      // The response had already been ended (the failure came after it): nothing more to say on it.
    }
  }

  /** The URL the visitor asked for, for the password form to post back to and the 303 after it. */
  const selfUrl = (incoming: Incoming) => (incoming.query === "" ? incoming.path : `${incoming.path}?${queryAsSent(incoming.query)}`)

  /**
   * A host that is not cached, checked before anything is looked up for it: an empty Host header
   * or one no domain could have gets 400, an IP literal the 404 any unknown host gets; true when
   * answered.
   */
  const refusedHost = (res: uWS.HttpResponse, head: boolean, host: string): boolean => {
    const kind = hostKind(host)
    if (kind === "name") return false
    if (kind === "address") page(res, head, 404, notFoundPage())
    else page(res, head, 400, badRequestPage(host === "" ? "The request names no host." : "The Host header is not a host name."))
    return true
  }

  const handleGet = (res: uWS.HttpResponse, incoming: Incoming) => {
    const isRoot = incoming.path === "/"
    const head = incoming.method === "head"
    if (!isRoot && !SLUG.test(incoming.slug)) {
      // Not a slug: nothing to look up; the domain still decides between 404 page and fallback.
      const domain = cache.peekDomain(incoming.host)
      if (domain !== undefined) return serve(res, incoming, domain, MISSING)
      if (refusedHost(res, head, incoming.host)) return
      return later(res, head, async () => {
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
    if (domain === undefined && refusedHost(res, head, incoming.host)) return
    later(res, head, async () => {
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
    later(res, false, () =>
      new Promise<(r: uWS.HttpResponse) => void>((resolve, reject) => {
        res.onData((chunk, last) => {
          if (!tooLarge) {
            body = Buffer.concat([body, Buffer.from(chunk)])
            if (body.length > MAX_FORM_BYTES) tooLarge = true
          }
          if (!last) return
          // The body is in: from here the answer is pending (see later()).
          res.pause()
          if (tooLarge) return resolve((r) => page(r, false, 413, payloadTooLargePage()))
          verifyPassword(incoming, body.toString("utf8")).then(resolve, reject)
        })
      }), false)
  }

  const verifyPassword = async (incoming: Incoming, form: string): Promise<(r: uWS.HttpResponse) => void> => {
    let domain = cache.peekDomain(incoming.host)
    if (domain === undefined) {
      const kind = hostKind(incoming.host)
      if (kind === "invalid") return (r) => page(r, false, 400, badRequestPage("The Host header is not a host name."))
      domain = kind === "address" ? MISSING : await cache.loadDomain(incoming.host)
    }
    const link = SLUG.test(incoming.slug) ? cache.peekLink(incoming.host, incoming.slug) ?? (await cache.loadLink(incoming.host, incoming.slug)) : MISSING
    const passwordHash = link === MISSING ? null : link.extras?.passwordHash ?? null
    if (domain === MISSING || !domain.serving || link === MISSING || passwordHash === null) {
      return (r) => page(r, false, 404, notFoundPage())
    }
    const action = selfUrl(incoming)
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
    return (r) => send(r, false, 303, [["location", action], ["set-cookie", cookie], ["cache-control", NO_STORE], ["referrer-policy", REDIRECT_REFERRER_POLICY]])
  }

  const route = (res: uWS.HttpResponse, req: uWS.HttpRequest) => {
    const incoming = read(res, req)
    if (incoming.path === "/.well-known/ricochet/status" && isLoopback(socketAddress(res))) {
      return send(res, incoming.method === "head", 200, [["content-type", "application/json"]], JSON.stringify(options.status()))
    }
    const head = incoming.method === "head"
    if (closing) return page(res, head, 503, errorPage(), [["connection", "close"]])
    switch (incoming.method) {
      case "get":
      case "head":
        return handleGet(res, incoming)
      case "post":
        return handlePassword(res, incoming)
      default:
        return page(res, false, 405, methodNotAllowedPage(), [["allow", "GET, HEAD, POST"]])
    }
  }

  // What uWS.js 20.30 never hands to a handler, so nothing here can answer it (raw-socket tests:
  // test/integration/engineHttp.test.ts, test/fuzz/engine.fuzz.test.ts). Its parser takes for an
  // incomplete request, and waits on until its 10 s idle timeout closes the connection: a request
  // line other than `METHOD /origin-form-target HTTP/1.1` (HTTP/1.0, absolute-form, `*`, bare LF
  // line ends), a request without Host, malformed header lines (control characters, a space
  // before the colon, folding), more than about 50 headers. It closes at once: methods other than
  // the nine of RFC 9110, Content-Length with Transfer-Encoding or not a number, a header block
  // over 4 KB that arrives in pieces.
  const app = uWS.App()
  app.any("/*", (res, req) => {
    try {
      route(res, req)
    } catch (error) {
      // A bug of ours, not the visitor's input: logged, and the generic page if the response is still open.
      console.error("engine request failed", error)
      answerFailure(res, req.getMethod() === "head")
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
