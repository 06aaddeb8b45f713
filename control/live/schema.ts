import { Schema } from "effect"

/**
 * What GET /v1/events streams to the dashboard (server-sent events), one Schema each: the
 * dashboard reads the same shapes. Not part of the spec.
 */

/** `event: click`: a visit, as the click files record it (bots never appear: they are not recorded). */
export const LiveClick = Schema.Struct({
  linkId: Schema.String,
  domain: Schema.String,
  slug: Schema.String,
  timestamp: Schema.String,
  audience: Schema.Literals(["people", "agent"]),
  country: Schema.NullOr(Schema.String),
  city: Schema.NullOr(Schema.String),
  device: Schema.String,
  browser: Schema.String,
  os: Schema.String,
  referer: Schema.NullOr(Schema.String)
}).annotate({ identifier: "LiveClick" })
export type LiveClick = typeof LiveClick.Type

/** `event: link`: a link of the workspace was created or changed, or deleted. */
export const LiveLinkChange = Schema.Struct({
  action: Schema.Literals(["changed", "deleted"]),
  linkId: Schema.String
}).annotate({ identifier: "LiveLinkChange" })
export type LiveLinkChange = typeof LiveLinkChange.Type
