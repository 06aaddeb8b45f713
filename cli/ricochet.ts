import { parseArgs } from "node:util"
import { AdminCommandError, type AdminCommand, runAdminCommand, sendAdminCommand } from "../control/admin/adminChannel.ts"
import { Layer } from "effect"
import { ChangeBus, ChangeBusLayer } from "../shared/bus/ChangeBus.ts"
import { ControlLayer } from "../control/control.ts"
import { Configuration } from "../shared/config.ts"
import { readOnlyLayer } from "../shared/db/Database.ts"
import { EngineLayer } from "../engine/EngineLayer.ts"
import { runProcess } from "../control/runProcess.ts"
import { openPostgres } from "../shared/db/client.ts"
import { openEmbedded } from "../control/db/embedded.ts"
import { migrate } from "../control/db/migrate.ts"
import type { Plan } from "../control/plans/plans.ts"
import { detachedBus } from "../shared/bus/bus.ts"
import { ConfigError, loadConfig, type RicochetConfig } from "../shared/config.ts"

const USAGE = `Usage:
  ricochet workspace create --name NAME --plan free|basic|pro|business [--json]
  ricochet key create --workspace ID --role admin|member [--json]
  ricochet control            run the control plane alone (API and background jobs)
  ricochet engine             run a redirect engine alone (needs DATABASE_URL; NATS_URL for freshness)`

const fail = (message: string, code = 1): never => {
  console.error(`ricochet: ${message}`)
  process.exit(code)
}

/**
 * Provisioning works with or without a running server: against PostgreSQL directly; on the
 * embedded default through the running server's admin channel, or by opening the data directory
 * when no server runs.
 */
const provision = async (config: RicochetConfig, command: AdminCommand): Promise<unknown> => {
  if (config.databaseUrl !== undefined) {
    const sql = openPostgres(config.databaseUrl, 2)
    try {
      await migrate(sql)
      return await runAdminCommand(sql, config.shortDomain, command)
    } finally {
      await sql.end({ timeout: 5 })
    }
  }
  const viaServer = await sendAdminCommand(config.dataDir, command)
  if (viaServer !== undefined) return viaServer
  const db = await openEmbedded(config.dataDir)
  try {
    await migrate(db.sql)
    return await runAdminCommand(db.sql, config.shortDomain, command)
  } finally {
    await db.close()
  }
}

const main = async () => {
  const [noun, verb, ...rest] = process.argv.slice(2)
  let config: RicochetConfig
  try {
    config = loadConfig()
  } catch (error) {
    if (error instanceof ConfigError) return fail(error.message)
    throw error
  }
  if (noun === "control" && verb === undefined) {
    runProcess(ControlLayer(config))
    return
  }
  if (noun === "engine" && verb === undefined) {
    if (config.databaseUrl === undefined) {
      return fail("DATABASE_URL must be set to run an engine alone (the embedded database lives inside `npm start`)")
    }
    if (config.natsUrl === undefined) {
      console.error("ricochet: NATS_URL is not set: this engine sees changes only when its cache entries expire (RICOCHET_CACHE_TTL_SECONDS)")
    }
    runProcess(EngineLayer.pipe(Layer.provide(Layer.mergeAll(
      Layer.succeed(Configuration)(config),
      readOnlyLayer(config.databaseUrl, config.databaseTimeoutSeconds),
      // Alone without NATS no change reaches this engine: an in-process bus would claim otherwise.
      config.natsUrl === undefined ? Layer.succeed(ChangeBus)(detachedBus()) : ChangeBusLayer(config, "ricochet-engine")
    ))))
    return
  }
  const { values } = (() => {
    try {
      return parseArgs({
        args: rest,
        options: {
          name: { type: "string" },
          plan: { type: "string" },
          workspace: { type: "string" },
          role: { type: "string" },
          json: { type: "boolean", default: false }
        },
        strict: true
      })
    } catch (error) {
      return fail(`${(error as Error).message}\n${USAGE}`, 2)
    }
  })()
  let command: AdminCommand
  if (noun === "workspace" && verb === "create") {
    if (values.name === undefined || values.plan === undefined) return fail(`workspace create needs --name and --plan\n${USAGE}`, 2)
    command = { command: "workspace.create", name: values.name, plan: values.plan as Plan }
  } else if (noun === "key" && verb === "create") {
    if (values.workspace === undefined || values.role === undefined) return fail(`key create needs --workspace and --role\n${USAGE}`, 2)
    command = { command: "key.create", workspaceId: values.workspace, role: values.role as "admin" | "member" }
  } else {
    return fail(USAGE, 2)
  }
  try {
    const result = (await provision(config, command)) as Record<string, any>
    if (values.json) {
      console.log(JSON.stringify(result))
    } else if (command.command === "workspace.create") {
      console.log(`Workspace ${result.workspace.name} (${result.workspace.id}, plan ${result.workspace.plan})\nDomain: ${result.domain}\nAPI key (shown once): ${result.apiKey}`)
    } else {
      console.log(`API key for a new ${result.role} (shown once): ${result.apiKey}`)
    }
  } catch (error) {
    if (error instanceof AdminCommandError) return fail(error.message)
    throw error
  }
}

main().catch((error) => fail(`unexpected failure: ${error instanceof Error ? error.stack : String(error)}`))
