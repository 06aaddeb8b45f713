import { Context, Effect, Layer } from "effect"
import { Database } from "../../shared/db/Database.ts"
import { newId } from "../../shared/ids.ts"
import type { LimitReached } from "../kernel/errors.ts"
import type { DatabaseUnavailable } from "../kernel/DatabaseUnavailable.ts"
import { onPool, query, run, transaction, uniqueViolation } from "../db/sql.ts"
import { toIso } from "../kernel/fields.ts"
import { ensureQuota, type Scope } from "../plans/quota.ts"
import { FolderNameTaken, FolderNotFound } from "./errors.ts"
import type { Folder } from "./schema.ts"

/** Folders of a workspace; deleting one leaves its links outside any folder (folder_id is set null). */
export class FolderRepository extends Context.Service<FolderRepository, {
  readonly list: (workspaceId: string) => Effect.Effect<Array<Folder>, DatabaseUnavailable>
  readonly create: (scope: Scope, name: string) => Effect.Effect<Folder, FolderNameTaken | LimitReached | DatabaseUnavailable>
  readonly rename: (workspaceId: string, id: string, name: string) => Effect.Effect<Folder, FolderNotFound | FolderNameTaken | DatabaseUnavailable>
  readonly remove: (workspaceId: string, id: string) => Effect.Effect<void, FolderNotFound | DatabaseUnavailable>
}>()("ricochet/FolderRepository") {}

interface FolderRow {
  id: string
  name: string
  created_at: Date
}

const toFolder = (row: FolderRow): Folder => ({ id: row.id, name: row.name, createdAt: toIso(row.created_at)! })

const nameTaken = (name: string) => uniqueViolation(() => FolderNameTaken.of(name))

export const FolderRepositoryLayer = Layer.effect(FolderRepository)(Effect.gen(function*() {
  const database = yield* Database
  const withDatabase = Effect.provideService(Database, database)
  return FolderRepository.of({
    list: (workspaceId) =>
      query((sql) =>
        sql<FolderRow[]>`SELECT id, name, created_at FROM folders WHERE workspace_id = ${workspaceId}
                         ORDER BY lower(name), id`
      ).pipe(Effect.map((rows) => rows.map(toFolder)), withDatabase),
    create: (scope, name) =>
      transaction((tx) =>
        Effect.gen(function*() {
          yield* ensureQuota(tx, scope, "folders", () => tx<{ n: number }[]>`SELECT count(*)::int AS n FROM folders WHERE workspace_id = ${scope.workspaceId}`)
          const [row] = yield* run(() =>
            tx.savepoint((sp) =>
              sp<FolderRow[]>`
                INSERT INTO folders (id, workspace_id, name) VALUES (${newId("fld")}, ${scope.workspaceId}, ${name})
                RETURNING id, name, created_at`
            )
          ).pipe(nameTaken(name))
          return toFolder(row)
        })
      ).pipe(withDatabase),
    rename: (workspaceId, id, name) =>
      onPool((sql) =>
        run(() =>
          sql<FolderRow[]>`UPDATE folders SET name = ${name} WHERE workspace_id = ${workspaceId} AND id = ${id}
                           RETURNING id, name, created_at`
        ).pipe(nameTaken(name))
      ).pipe(
        Effect.flatMap(([row]) => (row === undefined ? Effect.fail(FolderNotFound.make()) : Effect.succeed(toFolder(row)))),
        withDatabase
      ),
    remove: (workspaceId, id) =>
      query((sql) => sql`DELETE FROM folders WHERE workspace_id = ${workspaceId} AND id = ${id} RETURNING id`).pipe(
        Effect.flatMap((rows) => (rows.length === 0 ? Effect.fail(FolderNotFound.make()) : Effect.void)),
        withDatabase
      )
  })
}))
