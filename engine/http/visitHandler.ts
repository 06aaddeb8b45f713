import type uWS from "uWebSockets.js"
import { SLUG_PATTERN as SLUG } from "../../shared/links/slug.ts"
import { loadNow } from "../cache/blockingMiss.ts"
import { type LinkCache, MISSING } from "../cache/linkCache.ts"
import type { ClickIntake } from "../clicks/clickChannel.ts"
import type { CompiledDomain, CompiledLink } from "../links/compile.ts"
import { appHandOffPage, badRequestPage, expiredPage, landingPage, notFoundPage, openGraphPage, passwordPage } from "../pages/html.ts"
import { HANDOFF_PAGE_HEADERS } from "../pages/securityHeaders.ts"
import { evaluateLink } from "../rules/evaluate.ts"
import { type Incoming, selfUrl } from "./incoming.ts"
import type { PendingAnswers } from "./pendingAnswers.ts"
import { hostKind } from "./requestHost.ts"
import type { Responder } from "./respond.ts"
import { RequestVisit, type VisitContext } from "./requestVisit.ts"

export interface VisitDeps extends VisitContext {
  readonly cache: LinkCache
  readonly clicks: ClickIntake
  readonly pending: PendingAnswers
  readonly responder: Responder
}

/**
 * A host that is not cached, checked before anything is looked up for it: an empty Host header
 * or one no domain could have gets 400, an IP literal the 404 any unknown host gets; true when
 * answered.
 */
const refusedHost = (responder: Responder, res: uWS.HttpResponse, head: boolean, host: string): boolean => {
  const kind = hostKind(host)
  if (kind === "name") return false
  if (kind === "address") responder.page(res, head, 404, notFoundPage())
  else responder.page(res, head, 400, badRequestPage(host === "" ? "The request names no host." : "The Host header is not a host name."))
  return true
}

/**
 * GET and HEAD of a short link: synchronous when the domain and link are cached (the hot path,
 * no await); else, in an HTTP worker, usually still before the handler returns (answerNow), or
 * later from the database.
 */
export const makeVisitHandler = (deps: VisitDeps) => {
  const { cache, clicks, pending, responder } = deps

  /** The evaluation order (docs/architecture.md#the-evaluation-order), steps 1 to 10, once the domain and link are known (from cache or database). */
  const serve = (res: uWS.HttpResponse, incoming: Incoming, domain: CompiledDomain | typeof MISSING, link: CompiledLink | typeof MISSING | null) => {
    const head = incoming.method === "head"
    if (domain === MISSING || !domain.serving) return responder.page(res, head, 404, notFoundPage())
    if (link === null) {
      const root = domain.rootRedirectUrl
      return root === null ? responder.page(res, head, 200, landingPage(domain.record.host)) : responder.redirect(res, head, 302, root)
    }
    if (link === MISSING) {
      const fallback = domain.notFoundUrl
      return fallback === null ? responder.page(res, head, 404, notFoundPage()) : responder.redirect(res, head, 302, fallback)
    }
    const now = Date.now()
    const decision = evaluateLink(link, new RequestVisit(deps, incoming, link, now), domain.expiredUrl)
    switch (decision.kind) {
      case "expired-page":
        return responder.page(res, head, 410, expiredPage())
      case "expired-redirect":
        return responder.redirect(res, head, 302, decision.location)
      case "password-page":
        return responder.page(res, head, 200, passwordPage(selfUrl(incoming), "ask"))
      case "preview-page":
        return responder.page(res, head, 200, openGraphPage({
          title: link.extras!.title,
          description: link.extras!.description,
          image: link.extras!.ogImageUrl,
          url: link.url
        }))
      case "app":
        responder.page(res, head, 200, appHandOffPage(decision.appUrl, decision.location), [], HANDOFF_PAGE_HEADERS)
        break
      case "redirect":
        responder.redirect(res, head, decision.status, decision.location)
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
   * A miss answered before the handler returns, so that requests pipelined behind it in the same
   * read are answered too (engine/cache/blockingMiss.ts). False when the cache cannot answer now:
   * then it is answered later.
   */
  const answerNow = (res: uWS.HttpResponse, incoming: Incoming, domain: CompiledDomain | typeof MISSING | undefined, link: CompiledLink | typeof MISSING | null | undefined): boolean => {
    const loaded = loadNow(cache, incoming.host, incoming.slug, domain, link)
    if (loaded === undefined) return false
    serve(res, incoming, loaded.domain, loaded.link)
    return true
  }

  return (res: uWS.HttpResponse, incoming: Incoming) => {
    const isRoot = incoming.path === "/"
    const head = incoming.method === "head"
    if (!isRoot && !SLUG.test(incoming.slug)) {
      // Not a slug: nothing to look up; the domain still decides between 404 page and fallback.
      const domain = cache.peekDomain(incoming.host)
      if (domain !== undefined) return serve(res, incoming, domain, MISSING)
      if (refusedHost(responder, res, head, incoming.host)) return
      if (answerNow(res, incoming, undefined, MISSING)) return
      return pending.later(res, head, async () => {
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
    if (domain === undefined && refusedHost(responder, res, head, incoming.host)) return
    if (answerNow(res, incoming, domain, link)) return
    pending.later(res, head, async () => {
      const loadedDomain = domain ?? (await cache.loadDomain(incoming.host))
      if (loadedDomain === MISSING || !loadedDomain.serving) return (r) => serve(r, incoming, loadedDomain, MISSING)
      const loadedLink = isRoot ? null : link ?? (await cache.loadLink(incoming.host, incoming.slug))
      return (r) => serve(r, incoming, loadedDomain, loadedLink)
    })
  }
}
