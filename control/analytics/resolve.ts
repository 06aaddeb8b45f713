import type { Sql } from "postgres"
import { unknownReference } from "../kernel/errors.ts"
import { DomainUnknown, FolderUnknown, LinkUnknown, SlugUnknown, TagUnknown } from "../kernel/unknownReferences.ts"
import { commaList } from "../kernel/fields.ts"
import { PLAN_LIMITS, type Plan } from "../kernel/plans.ts"
import type { AnalyticsQuery, Interval } from "./schema.ts"
import type { ClickFilter } from "./sql.ts"

const DAY = 86_400_000
const INTERVAL_MS: Record<Exclude<Interval, "all">, number> = { "24h": DAY, "7d": 7 * DAY, "30d": 30 * DAY, "90d": 90 * DAY, "1y": 365 * DAY }

/** The window: ends now, starts at the interval or the plan's history, whichever is later. */
export const analyticsWindow = (interval: Interval, plan: Plan, nowMs: number): { fromMs: number; toMs: number } => {
  const history = nowMs - PLAN_LIMITS[plan].analyticsHistoryDays * DAY
  const wanted = interval === "all" ? history : nowMs - INTERVAL_MS[interval]
  return { fromMs: Math.max(wanted, history), toMs: nowMs }
}

/** Windows up to this long are counted by the hour in a timeseries; longer ones by the day. */
export const HOURLY_UP_TO_MS = 48 * 3_600_000

/**
 * The window a question asks for and how a timeseries buckets it. A custom window (start, end
 * defaulting to now) is cut to the plan's history and to now, as an interval is; a window wholly
 * outside those is empty (it ends where it starts). Without start, the interval (24h by default).
 */
export const requestedWindow = (
  q: Pick<AnalyticsQuery, "interval" | "start" | "end">,
  plan: Plan,
  nowMs: number
): { fromMs: number; toMs: number; bucket: "hour" | "day" } => {
  if (q.start === undefined) {
    const interval = q.interval ?? "24h"
    return { ...analyticsWindow(interval, plan, nowMs), bucket: interval === "24h" ? "hour" : "day" }
  }
  const history = nowMs - PLAN_LIMITS[plan].analyticsHistoryDays * DAY
  const fromMs = Math.max(Date.parse(q.start), history)
  const toMs = Math.max(fromMs, Math.min(q.end === undefined ? nowMs : Date.parse(q.end), nowMs))
  return { fromMs, toMs, bucket: toMs - fromMs <= HOURLY_UP_TO_MS ? "hour" : "day" }
}

const intersect = (a: ReadonlyArray<string> | null, b: ReadonlyArray<string>): ReadonlyArray<string> =>
  a === null ? b : a.filter((id) => b.includes(id))

/** A link-selecting parameter naming something that is not the workspace's. */
export type UnknownReference = LinkUnknown | DomainUnknown | SlugUnknown | FolderUnknown | TagUnknown

/**
 * Turns the link-selecting parameters (linkId, domain + slug, domain, folderId, tagIds) into link
 * ids or a domain, read from PostgreSQL at query time. Ids that are not the workspace's are 422s.
 */
export const resolveFilter = async (
  sql: Sql,
  workspaceId: string,
  q: Omit<AnalyticsQuery, "groupBy" | "limit">,
  window: { fromMs: number; toMs: number },
  among?: ReadonlyArray<string>
): Promise<ClickFilter | UnknownReference> => {
  let linkIds: ReadonlyArray<string> | null = null
  let domain: string | null = null
  if (among !== undefined && among.length > 0) {
    const rows = await sql<{ id: string }[]>`SELECT id FROM links WHERE workspace_id = ${workspaceId} AND id = ANY(${among})`
    const known = new Set(rows.map((r) => r.id))
    const unknown = among.find((id) => !known.has(id))
    if (unknown !== undefined) return new LinkUnknown(unknownReference(["linkIds"], `No link with id ${JSON.stringify(unknown)} in this workspace`))
    linkIds = among
  }
  if (q.linkId !== undefined) {
    const [row] = await sql`SELECT id FROM links WHERE workspace_id = ${workspaceId} AND id = ${q.linkId}`
    if (row === undefined) return new LinkUnknown(unknownReference(["linkId"], `No link with id ${JSON.stringify(q.linkId)} in this workspace`))
    linkIds = intersect(linkIds, [q.linkId])
  }
  if (q.domain !== undefined || q.slug !== undefined) {
    const host = q.domain?.toLowerCase()
    const [found] = host === undefined
      ? await sql<{ host: string }[]>`SELECT host FROM domains WHERE workspace_id = ${workspaceId} AND is_primary`
      : await sql<{ host: string }[]>`SELECT host FROM domains WHERE workspace_id = ${workspaceId} AND host = ${host}`
    if (found === undefined) return new DomainUnknown(unknownReference(["domain"], `${JSON.stringify(q.domain)} is not a domain of this workspace`))
    domain = found.host
    if (q.slug !== undefined) {
      const [link] = await sql<{ id: string }[]>`
        SELECT l.id FROM links l JOIN domains d ON d.id = l.domain_id
        WHERE l.workspace_id = ${workspaceId} AND d.host = ${found.host} AND l.slug = ${q.slug}`
      if (link === undefined) return new SlugUnknown(unknownReference(["slug"], `No link ${JSON.stringify(q.slug)} on ${found.host}`))
      linkIds = intersect(linkIds, [link.id])
    }
  }
  if (q.folderId !== undefined) {
    const [folder] = await sql`SELECT 1 FROM folders WHERE workspace_id = ${workspaceId} AND id = ${q.folderId}`
    if (folder === undefined) return new FolderUnknown(unknownReference(["folderId"], `No folder with id ${JSON.stringify(q.folderId)} in this workspace`))
    const rows = await sql<{ id: string }[]>`SELECT id FROM links WHERE workspace_id = ${workspaceId} AND folder_id = ${q.folderId}`
    linkIds = intersect(linkIds, rows.map((r) => r.id))
  }
  const tagIds = commaList(q.tagIds)
  if (tagIds.length > 0) {
    const known = new Set((await sql<{ id: string }[]>`SELECT id FROM tags WHERE workspace_id = ${workspaceId} AND id = ANY(${tagIds})`).map((r) => r.id))
    const unknown = tagIds.findIndex((id) => !known.has(id))
    if (unknown >= 0) return new TagUnknown(unknownReference(["tagIds"], `No tag with id ${JSON.stringify(tagIds[unknown])} in this workspace`))
    const rows = await sql<{ link_id: string }[]>`
      SELECT DISTINCT lt.link_id FROM link_tags lt JOIN links l ON l.id = lt.link_id
      WHERE l.workspace_id = ${workspaceId} AND lt.tag_id = ANY(${tagIds})`
    linkIds = intersect(linkIds, rows.map((r) => r.link_id))
  }
  return {
    workspaceId,
    ...window,
    linkIds,
    domain,
    countries: commaList(q.country),
    devices: commaList(q.device),
    browsers: commaList(q.browser),
    oses: commaList(q.os),
    referers: commaList(q.referer),
    utmSources: commaList(q.utmSource),
    utmMediums: commaList(q.utmMedium),
    utmCampaigns: commaList(q.utmCampaign),
    audience: q.audience === undefined ? null : q.audience === "people" ? "people" : "agent"
  }
}
