import { toIso } from "../kernel/fields.ts"
import type { Domain, DomainStatus } from "./schema.ts"
import { type CheckState, type DnsTargets, expectedRecords } from "./verification.ts"

/** A row of `domains` as the repository selects it. */
export interface DomainRow {
  readonly id: string
  readonly workspace_id: string
  readonly host: string
  readonly kind: "subdomain" | "custom"
  readonly status: DomainStatus
  readonly is_primary: boolean
  readonly verified_at: Date | null
  readonly verification_token: string
  readonly root_redirect_url: string | null
  readonly not_found_url: string | null
  readonly expired_url: string | null
  readonly created_at: Date
  readonly updated_at: Date
  readonly consecutive_failures: number
  readonly last_reason: string | null
  readonly last_checked_at: Date | null
}

export const DOMAIN_COLUMNS =
  "id, workspace_id, host, kind, status, is_primary, verified_at, verification_token, root_redirect_url, not_found_url, expired_url, created_at, updated_at, consecutive_failures, last_reason, last_checked_at"

export const toDomain = (row: DomainRow, targets: DnsTargets): Domain => ({
  id: row.id,
  host: row.host,
  kind: row.kind,
  status: row.status,
  primary: row.is_primary,
  verifiedAt: toIso(row.verified_at),
  rootRedirectUrl: row.root_redirect_url,
  notFoundUrl: row.not_found_url,
  expiredUrl: row.expired_url,
  dnsRecords: row.kind === "custom" ? expectedRecords(row.host, row.verification_token, targets) : [],
  createdAt: toIso(row.created_at)!,
  updatedAt: toIso(row.updated_at)!
})

export const checkStateOf = (row: DomainRow): CheckState => ({
  status: row.status,
  createdAt: new Date(row.created_at),
  verifiedAt: row.verified_at === null ? null : new Date(row.verified_at),
  consecutiveFailures: row.consecutive_failures
})

/** The last DNS check of a custom domain, as GET /v1/domains/checks answers it. */
export const toDomainCheck = (row: DomainRow) => ({ id: row.id, lastCheckedAt: toIso(row.last_checked_at), lastReason: row.last_reason })
