// First: on an unsupported Node.js, one line and exit 1 before anything else loads.
import "../shared/startup/nodeVersion.ts"
import { existsSync } from "node:fs"
import * as path from "node:path"
import { parseArgs } from "node:util"
import { Cause, Effect, Exit } from "effect"
import type { Sql } from "postgres"
import { type AdminCommand, type AdminOutcome, sendAdminCommand } from "../control/admin/adminChannel.ts"
import { runAdminCommandOn } from "../control/admin/runAdminCommand.ts"
import { openPostgres } from "../shared/db/client.ts"
import { makeOutageLog } from "../shared/db/outageLog.ts"
import { DataDirectoryInUse, openEmbedded } from "../control/db/embedded.ts"
import { migrate, pendingMigrations } from "../control/db/migrate.ts"
import { type Plan, PLANS } from "../control/kernel/plans.ts"
import { ConfigError, loadConfig, type RicochetConfig } from "../config.ts"
import { portProblem } from "../shared/startup/ports.ts"

const fail = (message: string, code = 1): never => {
  console.error(`ricochet: ${message}`)
  process.exit(code)
}

/**
 * Administration works with or without a running server: against PostgreSQL directly; on the
 * embedded default through the running server's admin channel, or by opening the data directory
 * when no server runs.
 */
const provision = async (config: RicochetConfig, command: AdminCommand, creates: boolean): Promise<AdminOutcome> => {
  // The CLI owns this database for one command: no API deadline.
  const runOn = async (sql: Sql, kind: "embedded" | "postgres"): Promise<AdminOutcome> => {
    const exit = await Effect.runPromiseExit(runAdminCommandOn({ sql, kind, queryTimeoutMs: undefined, outage: makeOutageLog() }, config.shortDomain, command))
    if (Exit.isSuccess(exit)) return { result: exit.value }
    const refusal = Cause.findErrorOption(exit.cause)
    if (refusal._tag === "Some") return { refused: refusal.value.message }
    // A bug: main() prints it as an unexpected failure.
    throw Cause.squash(exit.cause)
  }
  if (config.databaseUrl !== undefined) {
    const sql = openPostgres(config.databaseUrl, 2)
    try {
      // The controls migrate a shared database, when they start at this version: never the CLI ahead of them.
      const pending = await pendingMigrations(sql)
      if (pending.length > 0) {
        return {
          refused: `the database is not at this version's schema (missing ${pending.join(", ")}): start a control of this version, ` +
            "or run `ricochet migrate`, first"
        }
      }
      return await runOn(sql, "postgres")
    } finally {
      await sql.end({ timeout: 5 })
    }
  }
  const outcome = await withEmbedded(config, creates, (sql) => runOn(sql, "embedded"), command)
  if (!(outcome instanceof DataDirectoryInUse)) return outcome
  return { refused: `${outcome.message.replace(/; stop it first.*$/, "")}, and its admin channel does not answer: wait until it has started, or stop it` }
}

/**
 * The embedded database of a data directory: through the running server's admin channel when
 * `command` is given and one answers, else opened here (and migrated, as the server would at its
 * start) while no server holds the directory.
 */
const withEmbedded = async (
  config: RicochetConfig,
  creates: boolean,
  run: (sql: Sql, applied: ReadonlyArray<string>) => Promise<AdminOutcome>,
  command?: AdminCommand
): Promise<AdminOutcome | DataDirectoryInUse> => {
  if (command !== undefined) {
    const viaServer = await sendAdminCommand(config.dataDir, command)
    if (viaServer !== undefined) return viaServer
  }
  // A mistyped RICOCHET_DATA_DIR must not quietly become a second, empty installation.
  if (!creates && !existsSync(path.join(config.dataDir, "pg"))) {
    return { refused: `No database in ${config.dataDir} (set RICOCHET_DATA_DIR to the server's data directory, or DATABASE_URL)` }
  }
  let db: Awaited<ReturnType<typeof openEmbedded>>
  try {
    db = await openEmbedded(config.dataDir, "the ricochet CLI")
  } catch (error) {
    if (!(error instanceof DataDirectoryInUse)) throw error
    return error
  }
  try {
    return await run(db.sql, await migrate(db.sql))
  } finally {
    await db.close()
  }
}

/** `ricochet migrate`: this version's migrations, applied to DATABASE_URL or the data directory. */
const migrateCommand = async (config: RicochetConfig): Promise<AdminOutcome> => {
  if (config.databaseUrl === undefined) {
    const outcome = await withEmbedded(config, true, async (_sql, applied) => ({ result: { applied } }))
    // A server of this data directory migrated it when it started.
    return outcome instanceof DataDirectoryInUse ? { result: { applied: [] } } : outcome
  }
  const sql = openPostgres(config.databaseUrl, 1)
  try {
    return { result: { applied: await migrate(sql) } }
  } finally {
    await sql.end({ timeout: 5 })
  }
}

interface CommandSpec {
  readonly usage: string
  readonly summary: string
  readonly options: Record<string, { type: "string" | "boolean" }>
  /** The command to run, or a usage problem (exit 2). */
  readonly build: (values: Record<string, string | boolean | undefined>, positionals: ReadonlyArray<string>) => Promise<AdminCommand | string>
  readonly print: (result: any) => void
  /** Whether it may run against a data directory without a database (it creates one). */
  readonly creates?: boolean
}

const JSON_OPTION = { json: { type: "boolean" as const } }

const ROLES = ["admin", "member"] as const

/** A usage problem with a value that must be one of `allowed`, or undefined when it is one. */
const notOneOf = (what: string, value: unknown, allowed: ReadonlyArray<string>): string | undefined =>
  allowed.includes(value as string) ? undefined : `${what} must be one of ${allowed.join(", ")}, not ${JSON.stringify(value)}`

/** Tab-separated rows under a header: easy to read, easy to `cut`. */
const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<unknown>>) => {
  for (const row of [header, ...rows]) console.log(row.map((cell) => (cell === null || cell === undefined ? "-" : String(cell))).join("\t"))
}

/** A password piped on standard input (`echo pw | ricochet user create …`), or undefined at a terminal or with nothing piped. */
const passwordFromStdin = async (): Promise<string | undefined> => {
  if (process.stdin.isTTY) return undefined
  const chunks: Array<Buffer> = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString("utf8").replace(/\r?\n$/, "")
  return text === "" ? undefined : text
}

const printPassword = (result: { password?: string }, who: string) =>
  console.log(result.password === undefined ? `${who}: password as given` : `${who}: one-time password (shown once): ${result.password}`)

const COMMANDS: Record<string, CommandSpec> = {
  "workspace create": {
    usage: "ricochet workspace create --name NAME --plan free|basic|pro|business [--json]",
    summary: "A workspace, its admin key and its subdomain",
    options: { name: { type: "string" }, plan: { type: "string" }, ...JSON_OPTION },
    creates: true,
    build: async (v) =>
      v.name === undefined || v.plan === undefined
        ? "needs --name and --plan"
        : notOneOf("--plan", v.plan, PLANS) ?? { command: "workspace.create", name: v.name as string, plan: v.plan as Plan },
    print: (r) => console.log(`Workspace ${r.workspace.name} (${r.workspace.id}, plan ${r.workspace.plan})\nDomain: ${r.domain}\nAPI key (shown once): ${r.apiKey}`)
  },
  "workspace list": {
    usage: "ricochet workspace list [--json]",
    summary: "Every workspace: id, name, slug, plan, created",
    options: { ...JSON_OPTION },
    build: async () => ({ command: "workspace.list" }),
    print: (r) => table(["id", "name", "slug", "plan", "createdAt"], r.data.map((w: any) => [w.id, w.name, w.slug, w.plan, w.createdAt]))
  },
  "workspace set-plan": {
    usage: "ricochet workspace set-plan ID free|basic|pro|business [--json]",
    summary: "Changes a workspace's plan",
    options: { ...JSON_OPTION },
    build: async (_v, p) =>
      p.length !== 2
        ? "needs the workspace id and the plan"
        : notOneOf("the plan", p[1], PLANS) ?? { command: "workspace.setPlan", workspaceId: p[0], plan: p[1] },
    print: (r) => console.log(`Workspace ${r.name} (${r.id}) is now on plan ${r.plan}`)
  },
  "key create": {
    usage: "ricochet key create --workspace ID --role admin|member [--json]",
    summary: "A new user of the workspace with that role, and a key acting as them",
    options: { workspace: { type: "string" }, role: { type: "string" }, ...JSON_OPTION },
    build: async (v) =>
      v.workspace === undefined || v.role === undefined
        ? "needs --workspace and --role"
        : notOneOf("--role", v.role, ROLES) ?? { command: "key.create", workspaceId: v.workspace as string, role: v.role as "admin" | "member" },
    print: (r) => console.log(`API key for a new ${r.role} (shown once): ${r.apiKey}`)
  },
  "key list": {
    usage: "ricochet key list --workspace ID [--json]",
    summary: "The workspace's live keys: id, name, prefix, role, scope, creator, created, last used",
    options: { workspace: { type: "string" }, ...JSON_OPTION },
    build: async (v) => (v.workspace === undefined ? "needs --workspace" : { command: "key.list", workspaceId: v.workspace as string }),
    print: (r) =>
      table(
        ["id", "name", "prefix", "role", "scope", "createdBy", "createdAt", "lastUsedAt"],
        r.data.map((k: any) => [k.id, k.name, k.prefix, k.role, k.scope, k.createdBy?.email ?? k.createdBy?.id, k.createdAt, k.lastUsedAt])
      )
  },
  "key revoke": {
    usage: "ricochet key revoke ID [--json]",
    summary: "Revokes a key: every control process refuses it from the next request on",
    options: { ...JSON_OPTION },
    build: async (_v, p) => (p.length !== 1 ? "needs the key id" : { command: "key.revoke", id: p[0] }),
    print: (r) => console.log(`Revoked ${r.id}`)
  },
  "user create": {
    usage: "ricochet user create --email EMAIL --workspace ID --role admin|member [--json]   (password: piped on stdin, or generated and printed once)",
    summary: "A person who signs in; an existing email joins one more workspace",
    options: { email: { type: "string" }, workspace: { type: "string" }, role: { type: "string" }, ...JSON_OPTION },
    build: async (v) => {
      if (v.email === undefined || v.workspace === undefined || v.role === undefined) return "needs --email, --workspace and --role"
      const badRole = notOneOf("--role", v.role, ROLES)
      if (badRole !== undefined) return badRole
      const password = await passwordFromStdin()
      return {
        command: "user.create",
        email: v.email as string,
        workspaceId: v.workspace as string,
        role: v.role as "admin" | "member",
        ...(password === undefined ? {} : { password })
      }
    },
    print: (r) => {
      if (!r.created) return console.log(`${r.user.email} (${r.user.id}) is now a ${r.role} of ${r.workspaceId}; password unchanged`)
      console.log(`User ${r.user.email} (${r.user.id}), ${r.role} of ${r.workspaceId}`)
      printPassword(r, "Sign in")
    }
  },
  "user reset-password": {
    usage: "ricochet user reset-password --email EMAIL [--json]   (password: piped on stdin, or generated and printed once)",
    summary: "A new password; every session of the account ends",
    options: { email: { type: "string" }, ...JSON_OPTION },
    build: async (v) => {
      if (v.email === undefined) return "needs --email"
      const password = await passwordFromStdin()
      return { command: "user.resetPassword", email: v.email as string, ...(password === undefined ? {} : { password }) }
    },
    print: (r) => printPassword(r, `New password for ${r.user.email}`)
  },
  "user list": {
    usage: "ricochet user list [--workspace ID] [--json]",
    summary: "People and their memberships: id, email, workspace, role, created",
    options: { workspace: { type: "string" }, ...JSON_OPTION },
    build: async (v) => ({ command: "user.list", ...(v.workspace === undefined ? {} : { workspaceId: v.workspace as string }) }),
    print: (r) => table(["id", "email", "workspaceId", "role", "createdAt"], r.data.map((u: any) => [u.id, u.email, u.workspaceId, u.role, u.createdAt]))
  }
}

/** Commands that run a process, or act on the schema, rather than send one admin command. */
const PROCESSES: Record<string, { readonly usage: string; readonly summary: string }> = {
  control: { usage: "ricochet control", summary: "Runs the control plane alone (API and background jobs); it migrates the database at its start" },
  engine: { usage: "ricochet engine", summary: "Runs a redirect engine alone (needs DATABASE_URL; NATS_URL for freshness)" },
  migrate: { usage: "ricochet migrate [--json]", summary: "Applies this version's database migrations (controls do at their start; the other commands never do)" }
}

const USAGE = [
  "Usage:",
  ...Object.values(COMMANDS).map((c) => `  ${c.usage}`),
  ...Object.values(PROCESSES).map((c) => `  ${c.usage.padEnd(26)} ${c.summary}`),
  "  ricochet COMMAND --help     one command's usage",
  "Exit codes: 0 done, 1 failed, 2 usage error."
].join("\n")

const isHelp = (arg: string | undefined) => arg === "--help" || arg === "-h"

const helpOf = (specs: ReadonlyArray<{ readonly usage: string; readonly summary: string }>) =>
  specs.map((spec) => `Usage: ${spec.usage}\n${spec.summary}`).join("\n\n")

/**
 * What every setting is read from: this copy of the environment, validated by configOrFail
 * before anything starts, and then the ConfigProvider of the process the CLI runs.
 */
const environment = { ...process.env }

/**
 * The configuration, or the process ends with the setting that is wrong. The CLI's own commands
 * (migrate, provisioning) are plain code run once, not services, so they take the whole object;
 * the processes it starts read their settings from `environment` (ControlLayer, EngineLayer).
 */
const configOrFail = (): RicochetConfig => {
  try {
    return loadConfig(environment)
  } catch (error) {
    if (error instanceof ConfigError) return fail(error.message)
    throw error
  }
}

const main = async () => {
  const [noun, verb, ...rest] = process.argv.slice(2)
  if (noun === undefined || isHelp(noun) || noun === "help") {
    console.log(USAGE)
    return
  }
  const processCommand = PROCESSES[noun]
  if (processCommand !== undefined) {
    if (isHelp(verb)) return console.log(helpOf([processCommand]))
    const extra = [verb, ...rest].filter((arg) => arg !== undefined && !(noun === "migrate" && arg === "--json"))
    if (extra.length > 0) return fail(`${noun} takes no ${JSON.stringify(extra[0])}\nUsage: ${processCommand.usage}`, 2)
  }
  const spec = COMMANDS[`${noun} ${verb}`]
  if (spec !== undefined && (rest.some(isHelp))) {
    console.log(helpOf([spec]))
    return
  }
  if (processCommand === undefined && spec === undefined) {
    const family = Object.entries(COMMANDS).filter(([name]) => name.split(" ")[0] === noun).map(([, command]) => command)
    if (family.length > 0 && (verb === undefined || isHelp(verb))) {
      if (isHelp(verb)) return console.log(helpOf(family))
      return fail(`${noun} needs a command:\n${family.map((c) => `  ${c.usage}`).join("\n")}`, 2)
    }
    const named = family.length > 0 ? `${noun} ${verb}` : noun
    return fail(`unknown command ${JSON.stringify(named)}\n${USAGE}`, 2)
  }
  const config = configOrFail()
  if (noun === "migrate") {
    const outcome = await migrateCommand(config)
    if ("refused" in outcome) return fail(outcome.refused)
    const { applied } = outcome.result as { applied: ReadonlyArray<string> }
    if (rest.includes("--json") || verb === "--json") console.log(JSON.stringify({ applied }))
    else console.log(applied.length === 0 ? "Database up to date." : `Database migrated (${applied.join(", ")}).`)
    return
  }
  // The processes' code is loaded only to run them: administrative commands start quicker without it.
  if (noun === "control" && verb === undefined) {
    // Before anything is written (a first start creates the workspace and prints its key once).
    const taken = await portProblem(config.listenHost, [
      { port: config.apiPort, variable: "RICOCHET_API_PORT", what: "API" },
      { port: config.controlAdminPort, host: config.controlAdminHost, variable: "RICOCHET_CONTROL_ADMIN_PORT", what: "control health and metrics" }
    ])
    if (taken !== undefined) return fail(taken.replace(/^ricochet: /, ""))
    const [{ runProcess }, { ControlLayer }] = await Promise.all([import("../control/runProcess.ts"), import("../control/control.ts")])
    runProcess(ControlLayer(environment))
    return
  }
  if (noun === "engine" && verb === undefined) {
    if (config.databaseUrl === undefined) {
      return fail("DATABASE_URL must be set to run an engine alone (the embedded database lives inside `npm start`)")
    }
    const taken = await portProblem(config.listenHost, [
      { port: config.enginePort, variable: "RICOCHET_ENGINE_PORT", what: "short links" },
      { port: config.engineAdminPort, host: config.engineAdminHost, variable: "RICOCHET_ENGINE_ADMIN_PORT", what: "engine health and metrics" }
    ])
    if (taken !== undefined) return fail(taken.replace(/^ricochet: /, ""))
    if (config.natsUrl === undefined) {
      console.error("ricochet: NATS_URL is not set: this engine sees changes only when its cache entries expire (RICOCHET_CACHE_TTL_SECONDS)")
    }
    const [
      Layer,
      { runProcess },
      { EngineLayer },
      { EngineConfigurationLayer },
      { ChangeBus, ChangeBusLayer },
      { detachedBus },
      { BusSettingsLayer },
      { environmentLayer },
      { readOnlyLayer }
    ] = await Promise.all([
      import("effect/Layer"),
      import("../control/runProcess.ts"),
      import("../engine/EngineLayer.ts"),
      import("../engine/EngineConfiguration.ts"),
      import("../shared/bus/ChangeBus.ts"),
      import("../shared/bus/bus.ts"),
      import("../shared/settings/BusSettings.ts"),
      import("../shared/settings/environment.ts"),
      import("../shared/db/Database.ts")
    ])
    runProcess(EngineLayer.pipe(
      Layer.provide(Layer.mergeAll(
        EngineConfigurationLayer,
        readOnlyLayer(config.databaseUrl, config.databaseTimeoutSeconds),
        // Alone without NATS no change reaches this engine: an in-process bus would claim otherwise.
        config.natsUrl === undefined ? Layer.succeed(ChangeBus)(detachedBus()) : ChangeBusLayer("ricochet-engine").pipe(Layer.provide(BusSettingsLayer))
      )),
      Layer.provide(environmentLayer(environment))
    ))
    return
  }
  if (spec === undefined) return fail(USAGE, 2)
  const { values, positionals } = (() => {
    try {
      return parseArgs({ args: rest, options: spec.options, strict: true, allowPositionals: true })
    } catch (error) {
      return fail(`${(error as Error).message}\nUsage: ${spec.usage}`, 2)
    }
  })()
  const command = await spec.build(values, positionals)
  if (typeof command === "string") return fail(`${noun} ${verb}: ${command}\nUsage: ${spec.usage}`, 2)
  const outcome = await provision(config, command, spec.creates === true)
  if ("refused" in outcome) return fail(outcome.refused)
  if (values.json) console.log(JSON.stringify(outcome.result))
  else spec.print(outcome.result)
}

main().catch((error) => fail(`unexpected failure: ${error instanceof Error ? error.stack : String(error)}`))
