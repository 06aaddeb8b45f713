import { Effect, Layer } from "effect"
import { readdir } from "node:fs/promises"
import * as path from "node:path"
import type { Sql } from "postgres"
import type { ClickRecord } from "../../shared/clicks/click.ts"
import { selectClickFields } from "../../shared/clicks/clickColumns.ts"
import { isEngineFile, listHourDirs } from "../../shared/clicks/files.ts"
import { quote } from "../../shared/clicks/parquet.ts"
import { ClickSettings } from "../../shared/settings/ClickSettings.ts"
import { Database } from "../../shared/db/Database.ts"
import { ClickStore } from "../analytics/ClickStore.ts"
import { pollLoop } from "../jobs/pollLoop.ts"
import { insertWebhookDeliveries, type WebhookEvent } from "./events.ts"
import { WebhooksDue } from "./WebhooksDue.ts"

/**
 * link.clicked comes from the click pipeline's output, never from the redirect: the engines' click
 * writers (off the hot path) classify visits, drop bots and roll what people and agents did into
 * Parquet files every RICOCHET_ROLL_SECONDS; this job reads each new engine file once, and turns
 * its clicks, for workspaces with a link.clicked webhook (paused ones too: their clicks wait for
 * them, as other events do), into deliveries. A file is claimed in webhook_click_files in the
 * transaction that enqueues them, so with several control processes its clicks are sent once. Only files of the last two hours are looked at (a control process that was
 * down longer does not replay old clicks).
 */
const LOOK_BACK_MS = 2 * 3_600_000
/** Clicks of one link in one file go out in events of at most this many. */
export const CLICKS_PER_EVENT = 100

/** What a `link.clicked` event tells of each click. */
const FED_FIELDS = [
  "timestamp", "workspaceId", "linkId", "domain", "slug", "url", "audience", "country", "city", "device", "browser", "os", "refererHost"
] as const satisfies ReadonlyArray<keyof ClickRecord>

type FedClick = Pick<ClickRecord, (typeof FED_FIELDS)[number]>

/** One event per link and file (split past CLICKS_PER_EVENT), in click order. */
export const clickEventsOf = (clicks: ReadonlyArray<FedClick>, domainIds: ReadonlyMap<string, string>): Array<WebhookEvent> => {
  const byLink = new Map<string, Array<FedClick>>()
  for (const click of clicks) {
    const list = byLink.get(click.linkId)
    if (list === undefined) byLink.set(click.linkId, [click])
    else list.push(click)
  }
  const events: Array<WebhookEvent> = []
  for (const [linkId, clicks] of byLink) {
    for (let i = 0; i < clicks.length; i += CLICKS_PER_EVENT) {
      const chunk = clicks.slice(i, i + CLICKS_PER_EVENT)
      const first = chunk[0]
      events.push({
        type: "link.clicked",
        workspaceId: first.workspaceId,
        orderKey: `link:${linkId}`,
        linkId,
        domainId: domainIds.get(first.domain) ?? null,
        occurredAt: new Date(first.timestamp),
        data: {
          link: { id: linkId, domain: first.domain, slug: first.slug },
          clicks: chunk.map((c) => ({
            timestamp: new Date(c.timestamp).toISOString(),
            url: c.url,
            audience: c.audience,
            country: c.country,
            city: c.city,
            device: c.device,
            browser: c.browser,
            os: c.os,
            referer: c.refererHost
          }))
        }
      })
    }
  }
  return events
}

export const engineFiles = async (clicksDir: string, now: number): Promise<Array<string>> => {
  const hours = await listHourDirs(clicksDir, now - LOOK_BACK_MS, now)
  const files: Array<string> = []
  for (const { dir } of hours) {
    for (const name of (await readdir(dir).catch(() => [] as Array<string>)).sort()) {
      if (isEngineFile(name)) files.push(path.relative(clicksDir, path.join(dir, name)))
    }
  }
  return files
}

/**
 * One round: every new engine file read and claimed; the number of events enqueued. `done` holds
 * the files this process knows are claimed (by any process), so a busy directory is not asked
 * about again every second; it is trimmed to the files still listed.
 */
export const feedClicks = async (sql: Sql, store: ClickStore["Service"], done: Set<string>, now = Date.now()): Promise<number> => {
  // The directory first: an installation without recent clicks asks its database nothing.
  const listed = await engineFiles(store.clicksDir, now)
  const listedSet = new Set(listed)
  for (const name of done) if (!listedSet.has(name)) done.delete(name)
  const files = listed.filter((name) => !done.has(name))
  if (files.length === 0) return 0
  const watching = await sql<{ workspace_id: string }[]>`
    SELECT DISTINCT workspace_id FROM webhooks WHERE 'link.clicked' = ANY(events)`
  if (watching.length === 0) return 0
  const seen = new Set((await sql<{ name: string }[]>`SELECT name FROM webhook_click_files WHERE name = ANY(${files})`).map((r) => r.name))
  for (const name of seen) done.add(name)
  const workspaces = watching.map((w) => w.workspace_id)
  let enqueued = 0
  for (const file of files) {
    if (seen.has(file)) continue
    const placeholders = workspaces.map((_, i) => `$${i + 1}`).join(", ")
    const rows = (await store.query(
      `SELECT ${selectClickFields(FED_FIELDS)}
       FROM read_parquet(${quote(path.join(store.clicksDir, file))})
       WHERE workspace_id IN (${placeholders}) ORDER BY timestamp`,
      workspaces
    )) as unknown as Array<FedClick>
    enqueued += (await sql.begin(async (tx) => {
      const [claimed] = await tx`INSERT INTO webhook_click_files (name) VALUES (${file}) ON CONFLICT DO NOTHING RETURNING name`
      if (claimed === undefined || rows.length === 0) return 0
      const hosts = [...new Set(rows.map((r) => r.domain))]
      const domains = await tx<{ id: string; host: string }[]>`SELECT id, host FROM domains WHERE host = ANY(${hosts})`
      return insertWebhookDeliveries(tx, clickEventsOf(rows, new Map(domains.map((d) => [d.host, d.id]))))
    })) as number
    done.add(file)
  }
  return enqueued
}

/** Polls for new click files every second (the engines roll theirs every RICOCHET_ROLL_SECONDS). */
export const WebhookClickFeed = Layer.effectDiscard(Effect.gen(function*() {
  const { sql } = yield* Database
  const store = yield* ClickStore
  const { rollSeconds } = yield* ClickSettings
  const due = yield* WebhooksDue
  const tickMs = Math.min(1_000, Math.max(200, rollSeconds * 500))
  let rounds = 0
  const done = new Set<string>()
  const round = Effect.tryPromise(async () => {
    // Each file's deliveries are committed by the time feedClicks returns: the worker can see them.
    if (await feedClicks(sql, store, done) > 0) due.wake()
    if (++rounds % 600 === 0) await sql`DELETE FROM webhook_click_files WHERE seen_at < now() - interval '6 hours'`
    return "idle" as const
  })
  yield* pollLoop("webhook click feed", round, { idleMs: tickMs })
}))
