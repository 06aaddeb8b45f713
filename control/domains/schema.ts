import { Schema } from "effect"
import { HttpUrl } from "../kernel/fields.ts"

export const DnsRecord = Schema.Struct({ type: Schema.String, name: Schema.String, value: Schema.String })
export type DnsRecord = typeof DnsRecord.Type

export const DOMAIN_STATUSES = ["pending", "verified", "failed"] as const
export type DomainStatus = (typeof DOMAIN_STATUSES)[number]

export const Domain = Schema.Struct({
  id: Schema.String,
  host: Schema.String,
  kind: Schema.Literals(["subdomain", "custom"]),
  status: Schema.Literals(DOMAIN_STATUSES),
  primary: Schema.Boolean,
  verifiedAt: Schema.NullOr(Schema.String),
  rootRedirectUrl: Schema.NullOr(Schema.String),
  notFoundUrl: Schema.NullOr(Schema.String),
  expiredUrl: Schema.NullOr(Schema.String),
  dnsRecords: Schema.Array(DnsRecord),
  createdAt: Schema.String,
  updatedAt: Schema.String
}).annotate({ identifier: "Domain" })
export type Domain = typeof Domain.Type

export const DomainCreate = Schema.Struct({
  host: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(253))
}).annotate({ identifier: "DomainCreate" })

export const DomainUpdate = Schema.Struct({
  rootRedirectUrl: Schema.optionalKey(Schema.NullOr(HttpUrl)),
  notFoundUrl: Schema.optionalKey(Schema.NullOr(HttpUrl)),
  expiredUrl: Schema.optionalKey(Schema.NullOr(HttpUrl))
}).annotate({ identifier: "DomainUpdate" })

export const DomainList = Schema.Struct({ data: Schema.Array(Domain) })

export const VerificationResult = Schema.Struct({
  domain: Domain,
  verified: Schema.Boolean,
  reason: Schema.String
}).annotate({ identifier: "DomainVerification" })

/** The background checks' last word on each custom domain (not in the spec: the dashboard shows it after a reload). */
export const DomainCheck = Schema.Struct({
  id: Schema.String,
  lastCheckedAt: Schema.NullOr(Schema.String),
  lastReason: Schema.NullOr(Schema.String)
}).annotate({ identifier: "DomainCheck" })
export const DomainCheckList = Schema.Struct({ data: Schema.Array(DomainCheck) })
