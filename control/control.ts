import { Effect, Layer, Schedule } from "effect"
import { startAdminChannel } from "./admin/adminChannel.ts"
import { Configuration, type RicochetConfig } from "../shared/config.ts"
import { Database, DatabaseError } from "../shared/db/Database.ts"
import { embeddedLayer, postgresLayer } from "./db/layers.ts"
import { DomainRepositoryLayer } from "./domains/DomainRepository.ts"
import { DomainCheckJob, DomainVerifierLayer } from "./domains/DomainVerifier.ts"
import { ClickStoreLayer } from "./analytics/ClickStore.ts"
import { CompactionJob } from "./analytics/CompactionJob.ts"
import { ChangeBusLayer } from "../shared/bus/ChangeBus.ts"
import { ApiServerLayer } from "./http/server.ts"
import { OutboxPublisher, pruneOutbox } from "./outbox/publisher.ts"
import { sweep } from "./ratelimit/rateLimiter.ts"
import { ensureFirstWorkspace } from "./workspaces/provisioning.ts"

export const DatabaseLayer = (config: RicochetConfig) =>
  config.databaseUrl
    ? postgresLayer(config.databaseUrl, config.databaseTimeoutSeconds)
    : embeddedLayer(config.dataDir, config.databaseTimeoutSeconds)

const host = (config: RicochetConfig) => (config.listenHost === "0.0.0.0" || config.listenHost === "::" ? "localhost" : config.listenHost)

/** First start: a workspace and its key, printed once. */
const FirstStart = Layer.effectDiscard(Effect.gen(function*() {
  const { sql } = yield* Database
  const config = yield* Configuration
  const created = yield* Effect.tryPromise({
    try: () => ensureFirstWorkspace(sql, config.shortDomain),
    catch: (cause) => new DatabaseError({ cause })
  })
  if (created === undefined) return
  console.log([
    "",
    `Created workspace "${created.workspace.name}" (${created.workspace.id}, plan ${created.workspace.plan}).`,
    `  Short links on: ${created.domain}`,
    `  API key (shown once, keep it): ${created.apiKey}`,
    ""
  ].join("\n"))
}))

/** Background work owned by control: old rate-limit windows and sent outbox rows are removed. */
const Housekeeping = Layer.effectDiscard(Effect.gen(function*() {
  const { sql } = yield* Database
  yield* Effect.forkScoped(
    Effect.tryPromise(() => Promise.all([sweep(sql), pruneOutbox(sql)])).pipe(
      Effect.catchCause((cause) => Effect.logWarning("rate-limit sweep failed", cause)),
      Effect.repeat(Schedule.spaced("1 minute"))
    )
  )
}))

/** With the embedded database, the CLI reaches a running server through the admin channel. */
const AdminChannel = Layer.effectDiscard(Effect.gen(function*() {
  const { sql, kind } = yield* Database
  const config = yield* Configuration
  if (kind !== "embedded") return
  yield* Effect.acquireRelease(
    Effect.promise(() => startAdminChannel(config.dataDir, sql, config.shortDomain)),
    (stop) => Effect.promise(stop)
  )
}))

const Ready = Layer.effectDiscard(Effect.gen(function*() {
  const config = yield* Configuration
  const { kind } = yield* Database
  console.log(`Ricochet control: API on http://${host(config)}:${config.apiPort}/v1 (OpenAPI: /v1/openapi.json, reference: /v1/docs), database: ${kind === "embedded" ? `embedded in ${config.dataDir}` : "PostgreSQL"}`)
}))

/** What control and an engine in the same process share: config, database, bus; and control's domains, DNS verifier and click store. */
export const CoreLayer = (config: RicochetConfig) => {
  const base = Layer.mergeAll(Layer.succeed(Configuration)(config), DatabaseLayer(config), ChangeBusLayer(config, "ricochet-control"))
  const domains = Layer.provideMerge(DomainRepositoryLayer, base)
  return Layer.mergeAll(domains, DomainVerifierLayer.pipe(Layer.provide(domains)), ClickStoreLayer.pipe(Layer.provide(base)))
}

/**
 * The control plane: provisioning and background jobs first, then the API server, then the ready
 * line. The server only accepts requests once the first-start workspace exists.
 */
export const ControlParts = (config: RicochetConfig) => {
  const startup = Layer.mergeAll(FirstStart, AdminChannel, Housekeeping, DomainCheckJob, OutboxPublisher, CompactionJob)
  const server = ApiServerLayer(config.listenHost, config.apiPort).pipe(Layer.provide(startup))
  return Ready.pipe(Layer.provide(server))
}

/** `ricochet control`: the control plane alone. */
export const ControlLayer = (config: RicochetConfig) => ControlParts(config).pipe(Layer.provide(CoreLayer(config)))
