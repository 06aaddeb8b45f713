import { type LinkBase, shortLinkUrl } from "../../shared/links/shortLink.ts"
import type { LinkRecordRow } from "../../shared/links/linkQueries.ts"
import { toIso } from "../http/fields.ts"
import type { Link } from "./schema.ts"

/** A row of `links` joined with its domain host and tags, as the repository selects it. */
export interface LinkRow extends LinkRecordRow {
  readonly folder_id: string | null
  readonly tags: ReadonlyArray<{ id: string; name: string; color: "blue" | "teal" | "purple" | "pink" | null }>
  readonly created_at: Date
  /** created_at as PostgreSQL text, microseconds included: the cursor's sort key. */
  readonly created_key: string
}

// jsonb keeps keys in its own order; responses list them as the spec does.
const geoRules = (row: LinkRow) => row.geo_rules.map((r) => ({ country: r.country, url: r.url }))
const deviceRules = (row: LinkRow) => row.device_rules.map((r) => ({ device: r.device, url: r.url }))
const abTest = (row: LinkRow) =>
  row.ab_test === null
    ? null
    : { variants: row.ab_test.variants.map((v) => ({ url: v.url, weight: v.weight })), endsAt: row.ab_test.endsAt }

export const toLink = (row: LinkRow, base: LinkBase): Link => ({
  id: row.id,
  domain: row.host,
  slug: row.slug,
  shortLink: shortLinkUrl(base, row.host, row.slug),
  url: row.url,
  title: row.title,
  description: row.description,
  ogImageUrl: row.og_image_url,
  folderId: row.folder_id,
  tags: row.tags,
  redirectType: row.redirect_type,
  passQuery: row.pass_query,
  openInApp: row.open_in_app,
  openInBrowser: row.open_in_browser,
  utm: row.utm,
  geoRules: geoRules(row),
  deviceRules: deviceRules(row),
  expiresAt: toIso(row.expires_at),
  expiredUrl: row.expired_url,
  abTest: abTest(row),
  hasPassword: row.password_hash !== null,
  createdAt: toIso(row.created_at)!,
  updatedAt: toIso(row.updated_at)!
})
