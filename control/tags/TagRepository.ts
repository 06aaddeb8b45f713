import { Context, Effect, Layer } from "effect"
import { Database, type DatabaseError } from "../../shared/db/Database.ts"
import { newId } from "../../shared/ids.ts"
import type { LimitReached } from "../kernel/errors.ts"
import type { DatabaseUnavailable } from "../kernel/DatabaseUnavailable.ts"
import { onPool, query, run, transaction, uniqueViolation } from "../db/sql.ts"
import { toIso } from "../kernel/fields.ts"
import { ensureQuota, type Scope } from "../plans/quota.ts"
import { TagNameTaken, TagNotFound } from "./errors.ts"
import type { Tag } from "./schema.ts"

/** Tags of a workspace; deleting one leaves its links, untagged (link_tags cascades). */
export class TagRepository extends Context.Service<TagRepository, {
  readonly list: (workspaceId: string) => Effect.Effect<Array<Tag>, DatabaseUnavailable>
  readonly create: (scope: Scope, input: { readonly name: string; readonly color?: Tag["color"] }) => Effect.Effect<Tag, TagNameTaken | LimitReached | DatabaseUnavailable>
  readonly update: (
    workspaceId: string,
    id: string,
    input: { readonly name?: string; readonly color?: Tag["color"] }
  ) => Effect.Effect<Tag, TagNotFound | TagNameTaken | DatabaseUnavailable>
  readonly remove: (workspaceId: string, id: string) => Effect.Effect<void, TagNotFound | DatabaseUnavailable>
}>()("ricochet/TagRepository") {}

interface TagRow {
  id: string
  name: string
  color: Tag["color"]
  created_at: Date
}

const toTag = (row: TagRow): Tag => ({ id: row.id, name: row.name, color: row.color, createdAt: toIso(row.created_at)! })

const nameTaken = (name: string) => uniqueViolation(() => TagNameTaken.of(name))

export const TagRepositoryLayer = Layer.effect(TagRepository)(Effect.gen(function*() {
  const database = yield* Database
  const withDatabase = Effect.provideService(Database, database)
  return TagRepository.of({
    list: (workspaceId) =>
      query((sql) =>
        sql<TagRow[]>`SELECT id, name, color, created_at FROM tags WHERE workspace_id = ${workspaceId}
                      ORDER BY lower(name), id`
      ).pipe(Effect.map((rows) => rows.map(toTag)), withDatabase),
    create: (scope, input) =>
      transaction((tx) =>
        Effect.gen(function*() {
          yield* ensureQuota(tx, scope, "tags", () => tx<{ n: number }[]>`SELECT count(*)::int AS n FROM tags WHERE workspace_id = ${scope.workspaceId}`)
          const [row] = yield* run(() =>
            tx.savepoint((sp) =>
              sp<TagRow[]>`
                INSERT INTO tags (id, workspace_id, name, color)
                VALUES (${newId("tag")}, ${scope.workspaceId}, ${input.name}, ${input.color ?? null})
                RETURNING id, name, color, created_at`
            )
          ).pipe(nameTaken(input.name))
          return toTag(row)
        })
      ).pipe(withDatabase),
    update: (workspaceId, id, input) => {
      const changes: Record<string, unknown> = {}
      if (input.name !== undefined) changes.name = input.name
      if (input.color !== undefined) changes.color = input.color
      return onPool((sql): Effect.Effect<ReadonlyArray<TagRow>, TagNameTaken | DatabaseUnavailable | DatabaseError, Database> =>
        Object.keys(changes).length === 0
          ? run(() => sql<TagRow[]>`SELECT id, name, color, created_at FROM tags WHERE workspace_id = ${workspaceId} AND id = ${id}`)
          : run(() =>
            sql<TagRow[]>`UPDATE tags SET ${sql(changes)} WHERE workspace_id = ${workspaceId} AND id = ${id}
                          RETURNING id, name, color, created_at`
          ).pipe(nameTaken(input.name ?? ""))
      ).pipe(
        Effect.flatMap(([row]) => (row === undefined ? Effect.fail(TagNotFound.make()) : Effect.succeed(toTag(row)))),
        withDatabase
      )
    },
    remove: (workspaceId, id) =>
      query((sql) => sql`DELETE FROM tags WHERE workspace_id = ${workspaceId} AND id = ${id} RETURNING id`).pipe(
        Effect.flatMap((rows) => (rows.length === 0 ? Effect.fail(TagNotFound.make()) : Effect.void)),
        withDatabase
      )
  })
}))
