import { Effect, Layer } from "effect"
import { stat } from "node:fs/promises"
import * as path from "node:path"
import type { Sql } from "postgres"
import { quote } from "../../shared/clicks/parquet.ts"
import { ClickSettings } from "../../shared/settings/ClickSettings.ts"
import { Database } from "../../shared/db/Database.ts"
import { ClickStore } from "../analytics/ClickStore.ts"
import { engineFiles } from "../webhooks/ClickFeed.ts"
import { LiveHub } from "./LiveHub.ts"
import type { LiveClick, LiveLinkChange } from "./schema.ts"

/** At most this many clicks of one file go to one workspace's streams (a burst is a burst: the counts catch up on reload). */
const CLICKS_PER_FILE = 500
/** Files rolled this recently when the first stream opens are read, not skipped. */
const RECENT_MS = 3_000
/** Outbox rows read per round. */
const OUTBOX_BATCH = 500

interface ClickRow {
  ts: number
  workspace_id: string
  link_id: string
  domain: string
  slug: string
  audience: "people" | "agent"
  country: string | null
  city: string | null
  device: string
  browser: string
  os: string
  referer_host: string | null
}

export const sseEvent = (type: string, data: unknown) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`

/** What the tail has read: engine files, and the outbox up to an id. Reset when nobody listens. */
interface TailState {
  files: Set<string> | undefined
  outboxId: bigint | undefined
}

/**
 * New clicks: the engine files rolled since the last round (what the webhook click feed reads),
 * asked only for the workspaces with a stream open, each click handed to its own workspace.
 */
const tailClicks = async (store: ClickStore["Service"], hub: LiveHub["Service"], state: TailState, now: number) => {
  const listed = await engineFiles(store.clicksDir, now)
  if (state.files === undefined) {
    // Subscribed just now: what was rolled before is not news, except the last moments' files (a
    // visit made as the stream opened is shown, whichever came first).
    const settled = await Promise.all(listed.map(async (f) => {
      const modified = await stat(path.join(store.clicksDir, f)).then((s) => s.mtimeMs, () => 0)
      return modified < now - RECENT_MS ? f : undefined
    }))
    state.files = new Set(settled.filter((f): f is string => f !== undefined))
  }
  const fresh = listed.filter((f) => !state.files!.has(f))
  state.files = new Set(listed)
  const workspaces = hub.workspaces()
  if (fresh.length === 0 || workspaces.length === 0) return
  const placeholders = workspaces.map((_, i) => `$${i + 1}`).join(", ")
  for (const file of fresh) {
    const rows = (await store.query(
      `SELECT epoch_ms(timestamp) AS ts, workspace_id, link_id, domain, slug, audience, country, city, device, browser, os, referer_host
       FROM read_parquet(${quote(path.join(store.clicksDir, file))})
       WHERE workspace_id IN (${placeholders}) ORDER BY timestamp DESC`,
      workspaces
    )) as unknown as Array<ClickRow>
    const sent = new Map<string, number>()
    for (const row of rows.reverse()) {
      const n = sent.get(row.workspace_id) ?? 0
      if (n >= CLICKS_PER_FILE) continue
      sent.set(row.workspace_id, n + 1)
      const click: LiveClick = {
        linkId: row.link_id,
        domain: row.domain,
        slug: row.slug,
        timestamp: new Date(Number(row.ts)).toISOString(),
        audience: row.audience,
        country: row.country,
        city: row.city,
        device: row.device,
        browser: row.browser,
        os: row.os,
        referer: row.referer_host
      }
      hub.publish(row.workspace_id, sseEvent("click", click))
    }
  }
}

type OutboxRow = { id: string; payload: { type: string; link?: { id: string; workspaceId: string }; id?: string; host?: string } }

/** Link changes: the outbox rows written since the last round, each to its link's workspace. */
const tailLinks = async (sql: Sql, hub: LiveHub["Service"], state: TailState) => {
  if (state.outboxId === undefined) {
    const [row] = await sql<{ max: string | null }[]>`SELECT max(id)::text AS max FROM outbox`
    state.outboxId = BigInt(row?.max ?? "0")
    return
  }
  const rows = await sql<OutboxRow[]>`
    SELECT id::text AS id, payload FROM outbox WHERE id > ${state.outboxId.toString()}::bigint AND topic LIKE 'ricochet.changes.link.%'
    ORDER BY id LIMIT ${OUTBOX_BATCH}`
  const listening = new Set(hub.workspaces())
  const hosts = [...new Set(rows.filter((r) => r.payload.type === "link.deleted").map((r) => r.payload.host!))]
  const owners = hosts.length === 0
    ? new Map<string, string>()
    : new Map((await sql<{ host: string; workspace_id: string }[]>`SELECT host, workspace_id FROM domains WHERE host = ANY(${hosts})`).map((d) => [d.host, d.workspace_id]))
  for (const row of rows) {
    state.outboxId = BigInt(row.id)
    const change: { workspaceId: string | undefined; event: LiveLinkChange } | undefined = row.payload.type === "link.upserted"
      ? { workspaceId: row.payload.link?.workspaceId, event: { action: "changed", linkId: row.payload.link!.id } }
      : row.payload.type === "link.deleted"
        ? { workspaceId: owners.get(row.payload.host!), event: { action: "deleted", linkId: row.payload.id! } }
        : undefined
    if (change?.workspaceId !== undefined && listening.has(change.workspaceId)) hub.publish(change.workspaceId, sseEvent("link", change.event))
  }
}

/**
 * Feeds the live streams while any is open: new clicks from the engines' rolled files and link
 * changes from the outbox, every half roll interval (at most a second). With no stream open it
 * reads nothing and forgets where it was.
 */
export const LiveFeed = Layer.effectDiscard(Effect.gen(function*() {
  const { sql } = yield* Database
  const store = yield* ClickStore
  const hub = yield* LiveHub
  const { rollSeconds } = yield* ClickSettings
  const tickMs = Math.min(1_000, Math.max(200, rollSeconds * 500))
  const state: TailState = { files: undefined, outboxId: undefined }
  const round = Effect.tryPromise(async () => {
    if (hub.workspaces().length === 0) {
      state.files = undefined
      state.outboxId = undefined
      return
    }
    await tailClicks(store, hub, state, Date.now())
    await tailLinks(sql, hub, state)
  }).pipe(Effect.catchCause((cause) => Effect.logWarning("live feed round failed", cause)))
  yield* Effect.forkScoped(Effect.forever(Effect.andThen(round, Effect.sleep(tickMs))))
}))
