import { Data, Effect } from "effect"
import type { AdminCommand } from "../../shared/admin/commands.ts"
import { Database, type DatabaseError } from "../../shared/db/Database.ts"
import type { DatabaseUnavailable } from "../kernel/DatabaseUnavailable.ts"
import { query } from "../db/sql.ts"
import { listKeys, revokeKey } from "../keys/keys.ts"
import { checkPlan, createUser, listUsers, listWorkspaces, resetPassword, setPlan, workspaceExists } from "../people/users.ts"
import { checkWorkspaceName, createKey, createWorkspace } from "../workspaces/provisioning.ts"
import { makeWakeSignal } from "../jobs/wakeSignal.ts"
import { OutboxSignal } from "../outbox/OutboxSignal.ts"

/** `key revoke` of an id that names no live key. */
export class KeyUnknown extends Data.TaggedError("KeyUnknown")<{ readonly message: string }> {}

/** A refusal the CLI prints as is (exit 1). */
export interface AdminRefusal {
  readonly _tag: string
  readonly message: string
}

/** The database could not be reached: said in words, as every other refusal. */
const unavailable = <A, R>(effect: Effect.Effect<A, AdminRefusal | DatabaseUnavailable, R>): Effect.Effect<A, AdminRefusal, R> =>
  Effect.catchIf(effect, (error): error is DatabaseUnavailable => error._tag === "DatabaseUnavailable", (error) =>
    Effect.fail({ _tag: error._tag, message: `${error.message}; retry in a moment` }))

/**
 * Runs one provisioning command (from the admin channel, or from the CLI when it owns the
 * database). Every refusal is a tagged error whose message the CLI prints; anything else is a
 * defect.
 */
export const runAdminCommand = (shortDomain: string, command: AdminCommand) => {
  const outcome = (() => {
    switch (command.command) {
      case "key.list":
        return Effect.andThen(workspaceExists(command.workspaceId), Effect.map(query((sql) => listKeys(sql, command.workspaceId)), (data) => ({ data })))
      case "key.revoke":
        return Effect.flatMap(query((sql) => revokeKey(sql, command.id)), (revoked) =>
          revoked ? Effect.succeed({ id: command.id, revoked: true }) : Effect.fail(new KeyUnknown({ message: `No live key with id ${command.id}` })))
      case "user.create":
        return createUser(command)
      case "user.resetPassword":
        return resetPassword(command)
      case "user.list":
        return Effect.map(listUsers(command.workspaceId), (data) => ({ data }))
      case "workspace.list":
        return Effect.map(listWorkspaces(), (data) => ({ data }))
      case "workspace.setPlan":
        return setPlan(command.workspaceId, command.plan)
      case "workspace.create":
        return Effect.gen(function*() {
          const name = yield* checkWorkspaceName(command.name)
          const plan = yield* checkPlan(command.plan, "--plan")
          return yield* createWorkspace({ name, plan, shortDomain })
        })
      case "key.create":
        return createKey({ workspaceId: command.workspaceId, role: command.role })
    }
  })()
  // A DatabaseError left by a statement is a defect, as in the API (see control/db/sql.ts).
  return unavailable(
    Effect.catchTag(outcome as Effect.Effect<unknown, AdminRefusal | DatabaseUnavailable | DatabaseError, Database | OutboxSignal>, "DatabaseError", Effect.die)
  )
}

/**
 * For the callers outside Effect (the CLI, the admin channel): a database with no deadline of its
 * own, and the outbox signal of the process (the CLI owning the database has no publisher to wake:
 * a signal nobody listens to).
 */
export const runAdminCommandOn = (
  database: Database["Service"],
  shortDomain: string,
  command: AdminCommand,
  outbox: OutboxSignal["Service"] = makeWakeSignal()
) => runAdminCommand(shortDomain, command).pipe(Effect.provideService(Database, database), Effect.provideService(OutboxSignal, outbox))
