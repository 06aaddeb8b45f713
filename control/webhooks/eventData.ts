import type { Link } from "../links/schema.ts"
import type { WebhookEvent } from "./events.ts"

/**
 * The webhook events of link and domain changes. A link event's `data` is the link as the API
 * returns it; deliveries of one link keep their order (order key: the link).
 */
export const linkEvent = (type: "link.created" | "link.updated", link: Link, domainId: string, workspaceId: string): WebhookEvent => ({
  type,
  workspaceId,
  orderKey: `link:${link.id}`,
  linkId: link.id,
  domainId,
  data: link
})

export const linkDeletedEvent = (
  workspaceId: string,
  link: { readonly id: string; readonly domainId: string; readonly host: string; readonly slug: string }
): WebhookEvent => ({
  type: "link.deleted",
  workspaceId,
  orderKey: `link:${link.id}`,
  linkId: link.id,
  domainId: link.domainId,
  data: { id: link.id, domain: link.host, slug: link.slug }
})

/** A custom domain whose status became verified or failed; `reason` is what the DNS check found. */
export const domainStatusEvent = (
  workspaceId: string,
  domain: { readonly id: string; readonly host: string; readonly status: "verified" | "failed" },
  reason: string
): WebhookEvent => ({
  type: domain.status === "verified" ? "domain.verified" : "domain.failed",
  workspaceId,
  orderKey: `domain:${domain.id}`,
  linkId: null,
  domainId: domain.id,
  data: { id: domain.id, host: domain.host, status: domain.status, reason }
})
