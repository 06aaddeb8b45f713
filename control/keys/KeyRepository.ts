import { Context, Effect, Layer } from "effect"
import { Database } from "../../shared/db/Database.ts"
import type { DatabaseUnavailable } from "../kernel/DatabaseUnavailable.ts"
import type { Principal } from "../kernel/Principal.ts"
import { query } from "../db/sql.ts"
import { KeyNotFound } from "./errors.ts"
import { insertKey, type KeyListing, type KeyScope, listKeys, revokeKey } from "./keys.ts"

/** The workspace's API keys. A new key acts as the admin who made it, with the role and scope asked for. */
export class KeyRepository extends Context.Service<KeyRepository, {
  readonly list: (workspaceId: string) => Effect.Effect<Array<KeyListing>, DatabaseUnavailable>
  readonly create: (
    principal: Principal,
    input: { readonly name: string; readonly role: "admin" | "member"; readonly scope?: KeyScope }
  ) => Effect.Effect<KeyListing & { readonly key: string }, DatabaseUnavailable>
  readonly revoke: (workspaceId: string, id: string) => Effect.Effect<void, KeyNotFound | DatabaseUnavailable>
}>()("ricochet/KeyRepository") {}

export const KeyRepositoryLayer = Layer.effect(KeyRepository)(Effect.gen(function*() {
  const database = yield* Database
  const withDatabase = Effect.provideService(Database, database)
  return KeyRepository.of({
    list: (workspaceId) => query((sql) => listKeys(sql, workspaceId)).pipe(withDatabase),
    create: (principal, input) =>
      query((sql) =>
        insertKey(sql, {
          workspaceId: principal.workspaceId,
          userId: principal.userId,
          name: input.name.trim(),
          role: input.role,
          scope: input.scope ?? "all",
          createdBy: principal.userId
        })
      ).pipe(withDatabase),
    revoke: (workspaceId, id) =>
      query((sql) => revokeKey(sql, id, workspaceId)).pipe(
        Effect.flatMap((revoked) => (revoked ? Effect.void : Effect.fail(KeyNotFound.make()))),
        withDatabase
      )
  })
}))
