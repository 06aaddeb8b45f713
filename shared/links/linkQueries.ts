import type { Sql } from "postgres"
import type { DomainRecord, LinkRecord } from "./linkRecord.ts"

/** The columns a LinkRecord is made of (links joined with their domain's host). */
export interface LinkRecordRow {
  readonly id: string
  readonly workspace_id: string
  readonly domain_id: string
  readonly host: string
  readonly slug: string
  readonly url: string
  readonly title: string | null
  readonly description: string | null
  readonly og_image_url: string | null
  readonly redirect_type: 301 | 302 | 307 | 308
  readonly pass_query: boolean
  readonly open_in_app: boolean
  readonly open_in_browser: boolean
  readonly utm: Record<string, string> | null
  readonly geo_rules: ReadonlyArray<{ country: string; url: string }>
  readonly device_rules: ReadonlyArray<{ device: "ios" | "android" | "desktop"; url: string }>
  readonly expires_at: Date | null
  readonly expired_url: string | null
  readonly ab_test: { variants: ReadonlyArray<{ url: string; weight: number }>; endsAt: string | null } | null
  readonly password_hash: string | null
  readonly updated_at: Date
}

const iso = (value: Date | null): string | null => (value === null ? null : new Date(value).toISOString())

export const toLinkRecord = (row: LinkRecordRow): LinkRecord => ({
  id: row.id,
  workspaceId: row.workspace_id,
  domainId: row.domain_id,
  host: row.host,
  slug: row.slug,
  url: row.url,
  title: row.title,
  description: row.description,
  ogImageUrl: row.og_image_url,
  redirectType: row.redirect_type,
  passQuery: row.pass_query,
  openInApp: row.open_in_app,
  openInBrowser: row.open_in_browser,
  utm: row.utm,
  geoRules: row.geo_rules.map((r) => ({ country: r.country, url: r.url })),
  deviceRules: row.device_rules.map((r) => ({ device: r.device, url: r.url })),
  expiresAt: iso(row.expires_at),
  expiredUrl: row.expired_url,
  abTest: row.ab_test === null
    ? null
    : { variants: row.ab_test.variants.map((v) => ({ url: v.url, weight: v.weight })), endsAt: row.ab_test.endsAt },
  passwordHash: row.password_hash,
  updatedAt: iso(row.updated_at)!
})

const RECORD_COLUMNS = `l.id, l.workspace_id, l.domain_id, d.host, l.slug, l.url, l.title, l.description, l.og_image_url,
  l.redirect_type, l.pass_query, l.open_in_app, l.open_in_browser, l.utm, l.geo_rules, l.device_rules,
  l.expires_at, l.expired_url, l.ab_test, l.password_hash, l.updated_at`

/** One link by host and slug, as the engine loads it on a cache miss. */
export const loadLinkRecord = async (sql: Sql, host: string, slug: string): Promise<LinkRecord | null> => {
  const [row] = await sql<LinkRecordRow[]>`
    SELECT ${sql.unsafe(RECORD_COLUMNS)} FROM links l JOIN domains d ON d.id = l.domain_id
    WHERE d.host = ${host} AND l.slug = ${slug}`
  return row === undefined ? null : toLinkRecord(row)
}

/**
 * Many links by (host, slug) in one query: the engine batches the misses of one event-loop turn,
 * so a burst of misses costs one round trip instead of one each. Keys are `host\nslug`.
 */
export const loadLinkRecords = async (
  sql: Sql,
  keys: ReadonlyArray<{ readonly host: string; readonly slug: string }>
): Promise<Map<string, LinkRecord>> => {
  const rows = await sql<LinkRecordRow[]>`
    SELECT ${sql.unsafe(RECORD_COLUMNS)} FROM links l JOIN domains d ON d.id = l.domain_id
    WHERE (d.host, l.slug) IN (SELECT * FROM unnest(${keys.map((k) => k.host)}::text[], ${keys.map((k) => k.slug)}::text[]))`
  return new Map(rows.map((row) => [`${row.host}\n${row.slug}`, toLinkRecord(row)]))
}

/** The columns a DomainRecord is made of. */
export interface DomainRecordRow {
  readonly id: string
  readonly workspace_id: string
  readonly host: string
  readonly status: DomainRecord["status"]
  readonly root_redirect_url: string | null
  readonly not_found_url: string | null
  readonly expired_url: string | null
}

export const toDomainRecord = (row: DomainRecordRow): DomainRecord => ({
  id: row.id,
  workspaceId: row.workspace_id,
  host: row.host,
  status: row.status,
  rootRedirectUrl: row.root_redirect_url,
  notFoundUrl: row.not_found_url,
  expiredUrl: row.expired_url
})

export const loadDomainRecord = async (sql: Sql, host: string): Promise<DomainRecord | null> => {
  const [row] = await sql<DomainRecordRow[]>`
    SELECT id, workspace_id, host, status, root_redirect_url, not_found_url, expired_url FROM domains WHERE host = ${host}`
  return row === undefined ? null : toDomainRecord(row)
}

export const loadEngineSecret = async (sql: Sql): Promise<string> => {
  const [row] = await sql<{ value: string }[]>`SELECT value FROM settings WHERE key = 'engine_secret'`
  if (row === undefined) throw new Error("settings.engine_secret is missing: run control once to migrate the database")
  return row.value
}

/** Every slug on a domain, streamed in chunks (for the engine's slug filter). */
export async function* listSlugs(sql: Sql, host: string): AsyncIterable<ReadonlyArray<string>> {
  const cursor = sql<{ slug: string }[]>`
    SELECT l.slug FROM links l JOIN domains d ON d.id = l.domain_id WHERE d.host = ${host}`.cursor(10_000)
  for await (const rows of cursor) yield rows.map((r) => r.slug)
}
