import type { WebhookEvent } from "../webhooks/events.ts"
import type { Link } from "./schema.ts"

/**
 * The webhook event of a created or updated link: its `data` is the link as the API
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

