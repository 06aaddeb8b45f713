import type { DomainRecord } from "../../shared/links/linkRecord.ts"

export interface DomainRow {
  readonly id: string
  readonly workspace_id: string
  readonly host: string
  readonly status: "pending" | "verified" | "failed"
  readonly root_redirect_url: string | null
  readonly not_found_url: string | null
  readonly expired_url: string | null
}

export const toDomainRecord = (row: DomainRow): DomainRecord => ({
  id: row.id,
  workspaceId: row.workspace_id,
  host: row.host,
  status: row.status,
  rootRedirectUrl: row.root_redirect_url,
  notFoundUrl: row.not_found_url,
  expiredUrl: row.expired_url
})
