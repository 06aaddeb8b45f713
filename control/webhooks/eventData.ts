import type { WebhookEvent } from "./events.ts"

/**
 * The webhook events of link and domain changes; deliveries of one link keep their order (order
 * key: the link). A created or updated link's event is links/linkEvent.ts: its data is the link.
 */
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
