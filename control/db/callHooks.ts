import { Context, Effect, Layer } from "effect"

/** Runs around one repository operation on the database: a `query`, or a whole `transaction`. */
export type DatabaseCallHook = <A, E, R>(call: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>

/**
 * The hooks of this process, outermost first. The database layer knows only that there are some:
 * the process provides them where it is assembled (control/control.ts: the operator metrics time
 * every call, the workers are woken after the commit that gave them work). Without any (a test,
 * the CLI owning the database) a call runs bare.
 */
export const DatabaseCallHooks = Context.Reference<ReadonlyArray<DatabaseCallHook>>("ricochet/DatabaseCallHooks", {
  defaultValue: () => []
})

export const databaseCallHooksLayer = (...hooks: ReadonlyArray<DatabaseCallHook>) => Layer.succeed(DatabaseCallHooks)(hooks)

/** `call` inside the hooks of the process. */
export const hooked = <A, E, R>(call: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.service(DatabaseCallHooks), (hooks) => hooks.reduceRight((inner, hook) => hook(inner), call))
