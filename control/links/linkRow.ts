import type { LinkRecord } from "../../shared/links/linkRecord.ts"
import { type LinkRecordRow, toLinkRecord } from "../../shared/links/linkQueries.ts"
import { type LinkBase, shortLinkUrl } from "../../shared/links/shortLink.ts"
import { toIso } from "../kernel/fields.ts"
import type { Link } from "./schema.ts"

type LinkTag = Link["tags"][number]

/** A row of `links` joined with its domain host and tags, as the repository selects it. */
export interface LinkRow extends LinkRecordRow {
  readonly folder_id: string | null
  readonly tags: ReadonlyArray<LinkTag>
  readonly created_at: Date
  /** created_at as PostgreSQL text, microseconds included: the cursor's sort key. */
  readonly created_key: string
}

/**
 * A link as the repository hands it out: the engine's record of it (what it does, read from the
 * row once by toLinkRecord) and what only the API shows.
 */
export interface StoredLink {
  readonly record: LinkRecord
  readonly folderId: string | null
  readonly tags: ReadonlyArray<LinkTag>
  readonly createdAt: string
}

export const toStoredLink = (row: LinkRow): StoredLink => ({
  record: toLinkRecord(row),
  folderId: row.folder_id,
  tags: row.tags,
  createdAt: toIso(row.created_at)!
})

/** The Link resource of a stored link: its record's fields as they are, in the spec's order. */
export const toLink = ({ record, folderId, tags, createdAt }: StoredLink, base: LinkBase): Link => ({
  id: record.id,
  domain: record.host,
  slug: record.slug,
  shortLink: shortLinkUrl(base, record.host, record.slug),
  url: record.url,
  title: record.title,
  description: record.description,
  ogImageUrl: record.ogImageUrl,
  folderId,
  tags,
  redirectType: record.redirectType,
  passQuery: record.passQuery,
  openInApp: record.openInApp,
  openInBrowser: record.openInBrowser,
  utm: record.utm,
  geoRules: record.geoRules,
  deviceRules: record.deviceRules,
  expiresAt: record.expiresAt,
  expiredUrl: record.expiredUrl,
  abTest: record.abTest,
  hasPassword: record.passwordHash !== null,
  createdAt,
  updatedAt: record.updatedAt
})
