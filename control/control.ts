import { Clock, Context, Data, Effect, Layer } from "effect"
import { startAdminChannel } from "./admin/adminChannel.ts"
import { runAdminCommandOn } from "./admin/runAdminCommand.ts"
import { Database, DatabaseError } from "../shared/db/Database.ts"
import type { AdminCommand } from "../shared/admin/commands.ts"
import { DatabaseCallHooks, databaseCallHooksLayer } from "./db/callHooks.ts"
import { embeddedLayer, postgresLayer } from "./db/layers.ts"
import { DomainRepositoryLayer } from "./domains/DomainRepository.ts"
import { DomainCheckJob, DomainVerifierLayer } from "./domains/DomainVerifier.ts"
import { ClickStoreLayer } from "./analytics/ClickStore.ts"
import { CompactionJob } from "./analytics/CompactionJob.ts"
import { ClickBucketLayer } from "./analytics/ClickBucket.ts"
import { ClickMirrorJob } from "./analytics/ClickMirrorJob.ts"
import { ChangeBusLayer } from "../shared/bus/ChangeBus.ts"
import { ApiServerLayer } from "./http/server.ts"
import { ControlAdminServerLayer } from "./http/adminServer.ts"
import { ImportJobRepositoryLayer } from "./links/import/ImportJobRepository.ts"
import { ImportsQueuedLayer } from "./links/import/ImportsQueued.ts"
import { ImportRunner } from "./links/import/ImportRunner.ts"
import { pollLoop } from "./jobs/pollLoop.ts"
import { wakeAfterCommit } from "./jobs/wakeSignal.ts"
import { observeDatabaseCall } from "./ops/metrics.ts"
import { OutboxSignal, OutboxSignalLayer } from "./outbox/OutboxSignal.ts"
import { OutboxPublisher, pruneOutbox } from "./outbox/publisher.ts"
import { sweep } from "./ratelimit/rateLimiter.ts"
import { LiveFeed } from "./live/LiveFeed.ts"
import { LiveHubLayer } from "./live/LiveHub.ts"
import { WebhookClickFeed } from "./webhooks/ClickFeed.ts"
import { WebhookDeliveryWorker } from "./webhooks/DeliveryWorker.ts"
import { WebhooksDueLayer } from "./webhooks/WebhooksDue.ts"
import { ensureFirstWorkspace, type FirstStart as FirstStartWorkspace } from "./workspaces/provisioning.ts"
import { reachableHost, startBlock } from "../shared/startup/startBlock.ts"
import { shortLinkUrl } from "../shared/links/shortLink.ts"
import { printPlain } from "../shared/logging/installLogging.ts"
import { LinkSettings } from "../shared/settings/LinkSettings.ts"
import { ListenSettings } from "../shared/settings/ListenSettings.ts"
import { StorageSettings } from "../shared/settings/StorageSettings.ts"
import { type Environment, environmentLayer } from "../shared/settings/environment.ts"
import { ControlSettingsLayer } from "./settings.ts"
import { SessionSettings } from "./sessions/SessionSettings.ts"

/** PostgreSQL when DATABASE_URL is set, else the embedded database in the data directory. */
export const DatabaseLayer = Layer.unwrap(Effect.map(StorageSettings, ({ dataDir, databaseUrl, databaseTimeoutSeconds }) =>
  databaseUrl
    ? postgresLayer(databaseUrl, databaseTimeoutSeconds)
    : embeddedLayer(dataDir, databaseTimeoutSeconds)))

/** The workspace this start created (the first start only), for the closing block to show its key. */
export class FirstWorkspace extends Context.Service<FirstWorkspace, { readonly created: FirstStartWorkspace | undefined }>()(
  "ricochet/FirstWorkspace"
) {}

/** Where people sign in: the public origin when configured, else this API server. */
export const signInUrl = (config: Pick<BannerSettings, "publicOrigin" | "listenHost" | "apiPort">) =>
  `${config.publicOrigin ?? `http://${reachableHost(config.listenHost)}:${config.apiPort}`}/`

/** First start: a workspace and its key, shown once in the closing block. */
const FirstStart = Layer.effect(FirstWorkspace)(Effect.gen(function*() {
  const database = yield* Database
  const { shortDomain } = yield* LinkSettings
  const { adminEmail } = yield* SessionSettings
  // Without the API's deadline (a first start hashes a password, and may run on a slow disk); a
  // refusal here (the admin email, say) stops the start like a database failure.
  const created = yield* ensureFirstWorkspace(shortDomain, adminEmail).pipe(
    Effect.provideService(Database, { ...database, queryTimeoutMs: undefined }),
    Effect.mapError((cause) => new DatabaseError({ cause }))
  )
  if (created !== undefined) printPlain(`Created workspace "${created.workspace.name}" (${created.workspace.id}, plan ${created.workspace.plan}).`)
  return { created }
}))

/** Background work owned by control: old rate-limit windows and sent outbox rows are removed. */
const Housekeeping = Layer.effectDiscard(Effect.gen(function*() {
  const { sql } = yield* Database
  const step = Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.tryPromise(() => Promise.all([sweep(sql, now), pruneOutbox(sql)])))
  yield* pollLoop("housekeeping", Effect.as(step, "idle" as const), {
    idleMs: 60_000,
    maxBackoffMs: 60_000
  })
}))

/** The admin channel could not be opened (a port on loopback, a file in the data directory). */
export class AdminChannelError extends Data.TaggedError("AdminChannelError")<{ readonly cause: unknown }> {
  override get message() {
    return `could not open the admin channel in the data directory: ${String(this.cause)}`
  }
}

/**
 * With the embedded database, the CLI reaches a running server through the admin channel. Failing
 * to open it stops the start: without it the CLI would find no server and open the data directory
 * this process holds.
 */
const AdminChannel = Layer.effectDiscard(Effect.gen(function*() {
  const database = yield* Database
  const { shortDomain } = yield* LinkSettings
  const { dataDir } = yield* StorageSettings
  const outbox = yield* OutboxSignal
  const hooks = yield* Effect.service(DatabaseCallHooks)
  if (database.kind !== "embedded") return
  const run = (command: AdminCommand) =>
    runAdminCommandOn(database, shortDomain, command, outbox).pipe(Effect.provideService(DatabaseCallHooks, hooks))
  yield* Effect.acquireRelease(
    Effect.tryPromise({
      try: () => startAdminChannel(dataDir, run),
      catch: (cause) => new AdminChannelError({ cause })
    }),
    // Cannot reject (.catch): a channel file that cannot be removed is replaced at the next start.
    (stop) => Effect.promise(() => stop().catch((error) => console.error("closing the admin channel failed", error)))
  )
}))

/**
 * What the closing block shows, gathered from four settings: one object, as the block is one
 * text that names the API, the dashboard, the short links and the database together.
 */
export type BannerSettings =
  & Pick<ListenSettings["Service"], "listenHost" | "apiPort">
  & LinkSettings["Service"]
  & Pick<StorageSettings["Service"], "dataDir">
  & Pick<SessionSettings["Service"], "publicOrigin">

/**
 * The lines of the closing block: where the API and its reference are, where short links answer,
 * and on the first start the key (shown once). Exported so other first-start facts add lines.
 */
export const startLines = (
  config: BannerSettings,
  database: "embedded" | "postgres",
  created: FirstStartWorkspace | undefined,
  withEngine: boolean
): Array<string> => {
  const api = `http://${reachableHost(config.listenHost)}:${config.apiPort}`
  return [
    `Dashboard:     ${signInUrl(config)}`,
    `API:           ${api}/v1`,
    `Reference:     ${api}/v1/docs (OpenAPI: ${api}/v1/openapi.json)`,
    ...(withEngine ? [`Short links:   ${shortLinkUrl(config, created?.domain ?? `<workspace>.${config.shortDomain}`, "<slug>")}`] : []),
    `Database:      ${database === "embedded" ? `embedded, in ${config.dataDir}` : "PostgreSQL"}`,
    ...(created === undefined
      ? []
      : [
        `Workspace:     "${created.workspace.name}" on ${created.domain}`,
        `Sign in at ${signInUrl(config)} as ${created.admin.email}, one-time password (shown once): ${created.admin.password}`,
        `API key (shown once, keep it): ${created.apiKey}`,
        `Try it:        curl -H "Authorization: Bearer ${created.apiKey}" ${api}/v1/links`
      ])
  ]
}

/** The closing block, once the API (and, with `withEngine`, the engine beside it) listens. */
export const Ready = (withEngine: boolean) => Layer.effectDiscard(Effect.gen(function*() {
  const config: BannerSettings = {
    ...(yield* ListenSettings),
    ...(yield* LinkSettings),
    dataDir: (yield* StorageSettings).dataDir,
    publicOrigin: (yield* SessionSettings).publicOrigin
  }
  const { kind } = yield* Database
  const { created } = yield* FirstWorkspace
  printPlain(startBlock(`Ricochet is running${withEngine ? "" : " (control only)"}`, startLines(config, kind, created, withEngine)))
}))

/** The database, the bus, what runs around each database call and what it wakes after a commit. */
const CoreBase = Layer.mergeAll(
  DatabaseLayer, ChangeBusLayer("ricochet-control"),
  databaseCallHooksLayer(observeDatabaseCall, wakeAfterCommit), OutboxSignalLayer, WebhooksDueLayer, ImportsQueuedLayer
)

const CoreDomains = Layer.provideMerge(DomainRepositoryLayer, CoreBase)

/**
 * What control and an engine in the same process share: database, bus; and control's domains, DNS
 * verifier and click store. Each part reads its own settings (ControlSettingsLayer).
 */
export const CoreLayer = Layer.mergeAll(
  CoreDomains,
  DomainVerifierLayer.pipe(Layer.provide(CoreDomains)),
  ClickStoreLayer.pipe(Layer.provide(CoreBase)),
  ClickBucketLayer.pipe(Layer.provide(CoreBase))
)

/** Provisioning and background jobs, which the servers start after. */
const Startup = Layer.mergeAll(
  FirstStart, AdminChannel, Housekeeping, DomainCheckJob, OutboxPublisher, CompactionJob, ClickMirrorJob,
  ImportRunner.pipe(Layer.provide(ImportJobRepositoryLayer)), WebhookDeliveryWorker, WebhookClickFeed,
  LiveFeed.pipe(Layer.provideMerge(LiveHubLayer))
)

/** The API server and the operator port, on the configured addresses. */
const Servers = Layer.unwrap(Effect.map(ListenSettings, (listen) =>
  Layer.merge(ApiServerLayer(listen.listenHost, listen.apiPort), ControlAdminServerLayer(listen.controlAdminHost, listen.controlAdminPort))))

/**
 * The control plane: provisioning and background jobs first, then the API server and the
 * operator port (control/http/adminServer.ts). The API only accepts requests once the first-start
 * workspace exists. Its output keeps FirstWorkspace for the closing block.
 */
export const ControlParts = Servers.pipe(Layer.provideMerge(Startup))

/**
 * Control's settings services over the variables in `env`: a process's root passes the
 * environment start-up validated (loadConfig), a test the variables of its control. The
 * ConfigProvider stays in context too, so anything reading a Config reads the same variables.
 */
export const SettingsFrom = (env: Environment) => Layer.provideMerge(ControlSettingsLayer, environmentLayer(env))

/** `ricochet control`: the control plane alone, its settings read from `env`. */
export const ControlLayer = (env: Environment) =>
  Ready(false).pipe(Layer.provide(ControlParts), Layer.provide(CoreLayer), Layer.provide(SettingsFrom(env)))
