import { Schema } from "effect"

export const REDIRECT_TYPES = [301, 302, 307, 308] as const
export const DEVICES = ["ios", "android", "desktop"] as const

/** A link's rules as stored: once here, for the engine's record and the API's Link alike. */
export const GeoRule = Schema.Struct({ country: Schema.String, url: Schema.String })
export const DeviceRule = Schema.Struct({ device: Schema.Literals(DEVICES), url: Schema.String })
export const AbVariant = Schema.Struct({ url: Schema.String, weight: Schema.Finite })
export const AbTest = Schema.Struct({ variants: Schema.Array(AbVariant), endsAt: Schema.NullOr(Schema.String) })

/** What a link does when visited: the fields the engine's record and the API's Link share. */
export const linkBehaviour = {
  url: Schema.String,
  title: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  ogImageUrl: Schema.NullOr(Schema.String),
  redirectType: Schema.Literals(REDIRECT_TYPES),
  passQuery: Schema.Boolean,
  openInApp: Schema.Boolean,
  openInBrowser: Schema.Boolean,
  utm: Schema.NullOr(Schema.Record(Schema.String, Schema.String)),
  geoRules: Schema.Array(GeoRule),
  deviceRules: Schema.Array(DeviceRule),
  expiresAt: Schema.NullOr(Schema.String),
  expiredUrl: Schema.NullOr(Schema.String),
  abTest: Schema.NullOr(AbTest)
}

/**
 * A link as the redirect engine needs it: what crosses the bus and what the engine compiles into
 * its cache. Plain JSON (no Dates) so both msgpack and the outbox's jsonb carry it unchanged; the
 * engine decodes it on receipt (ChangeEvent), so what it compiles has the shape declared here.
 */
export const LinkRecord = Schema.Struct({
  id: Schema.String,
  workspaceId: Schema.String,
  domainId: Schema.String,
  host: Schema.String,
  slug: Schema.String,
  ...linkBehaviour,
  /** argon2id hash in PHC form, or null; the engine verifies passwords against it. */
  passwordHash: Schema.NullOr(Schema.String),
  updatedAt: Schema.String
})
export type LinkRecord = typeof LinkRecord.Type

/** A domain as the engine needs it: which host serves, and its fallbacks. */
export const DomainRecord = Schema.Struct({
  id: Schema.String,
  workspaceId: Schema.String,
  host: Schema.String,
  status: Schema.Literals(["pending", "verified", "failed"]),
  rootRedirectUrl: Schema.NullOr(Schema.String),
  notFoundUrl: Schema.NullOr(Schema.String),
  expiredUrl: Schema.NullOr(Schema.String)
})
export type DomainRecord = typeof DomainRecord.Type
