import { type Duration, Effect, Layer, ManagedRuntime } from "effect"
import { TestClock } from "effect/testing"
import { CoreLayer, SettingsFrom } from "../../control/control.ts"
import { transaction } from "../../control/db/sql.ts"
import { ApiServerLayer } from "../../control/http/server.ts"
import { LiveHubLayer } from "../../control/live/LiveHub.ts"
import { createUserOn } from "../../control/people/users.ts"
import type { Plan } from "../../control/kernel/plans.ts"
import { createKey, createWorkspace, ensureFirstWorkspace } from "../../control/workspaces/provisioning.ts"
import { loadConfig } from "../../config.ts"
import { Database } from "../../shared/db/Database.ts"
import { createTestDatabase, freePort, removeDir, tempDir } from "./processes.ts"

export type Backend = "postgres" | "embedded"

/**
 * Control's API served inside the test process, on a port of its own, over a fresh PostgreSQL
 * database or the embedded default in a temporary data directory; no background jobs. Effect's
 * Clock is a TestClock, so what counts in minute windows (the rate limits, the wrong-password
 * limit) moves only when the test says so: `advance`. Starts on a minute boundary. Whatever
 * waits on Effect's clock in a request (a timeout that would fire) waits for `advance` too.
 *
 * For what the API does; what a process does (its start, its output, its CLI) stays with
 * startControl (processes.ts).
 */
export const startInProcessControl = async (backend: Backend, env: Record<string, string> = {}) => {
  const dir = await tempDir("ricochet-inprocess-")
  const db = backend === "postgres" ? await createTestDatabase() : undefined
  const port = await freePort()
  const environment = {
    RICOCHET_LISTEN_HOST: "127.0.0.1",
    RICOCHET_API_PORT: String(port),
    RICOCHET_DATA_DIR: dir,
    // A loaded test machine makes slow requests; their log lines are of no use here.
    RICOCHET_SLOW_REQUEST_MS: "60000",
    ...(db === undefined ? {} : { DATABASE_URL: db.url }),
    ...env
  }
  // Validated as a process's start validates them; the services then read their settings from
  // these variables (SettingsFrom), not from this test process's environment.
  const config = loadConfig(environment)
  const clock = TestClock.layer({ warningDelay: "1 hour" })
  const layer = ApiServerLayer(config.listenHost, config.apiPort).pipe(
    Layer.provideMerge(LiveHubLayer),
    Layer.provideMerge(CoreLayer),
    Layer.provideMerge(SettingsFrom(environment)),
    Layer.provideMerge(clock)
  )
  const runtime = ManagedRuntime.make(layer)
  const run = <A, E>(effect: Effect.Effect<A, E, Layer.Success<typeof layer>>): Promise<A> => runtime.runPromise(effect)
  const stop = async () => {
    await runtime.dispose()
    await db?.drop()
    await removeDir(dir)
  }
  const { first, sql } = await Effect.gen(function*() {
    yield* TestClock.setTime(Date.now() - (Date.now() % 60_000))
    const first = yield* ensureFirstWorkspace(config.shortDomain, config.adminEmail)
    if (first === undefined) return yield* Effect.die(new Error("a fresh database already had a workspace"))
    const { sql } = yield* Database
    return { first, sql }
  }).pipe(run).catch(async (error) => {
    await stop()
    throw error
  })
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    config,
    /** The server's own database client (the embedded database has one connection, this one). */
    sql,
    /** The first workspace, its admin (with the one-time password) and its key, as a first start makes them. */
    first,
    /** Moves Effect's clock of the server (nothing else) forward. */
    advance: (duration: Duration.Input) => run(TestClock.adjust(duration)),
    createWorkspace: (plan: Plan = "pro", name = "Test workspace") => run(createWorkspace({ name, plan, shortDomain: config.shortDomain })),
    /** A key of a new user of the workspace, as `ricochet key create` makes it. */
    createKey: (workspaceId: string, role: "admin" | "member") => run(createKey({ workspaceId, role })),
    /** A person in a workspace, with a generated one-time password unless `password` is given. */
    createUser: (input: { readonly email: string; readonly workspaceId: string; readonly role: "admin" | "member"; readonly password?: string }) =>
      run(transaction((tx) => createUserOn(tx, input))),
    stop
  }
}

export type InProcessControl = Awaited<ReturnType<typeof startInProcessControl>>
