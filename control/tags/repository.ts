import type { Sql } from "postgres"
import { newId } from "../../shared/ids.ts"
import { isUniqueViolation } from "../../shared/db/Database.ts"
import { apiError, notFound } from "../http/ApiError.ts"
import { toIso } from "../http/fields.ts"
import { lockWorkspaceQuota } from "../links/repository.ts"
import { limitReached, PLAN_LIMITS } from "../plans/plans.ts"
import type { Scope } from "../links/repository.ts"
import type { Tag } from "./schema.ts"

interface TagRow {
  id: string
  name: string
  color: Tag["color"]
  created_at: Date
}

const toTag = (row: TagRow): Tag => ({ id: row.id, name: row.name, color: row.color, createdAt: toIso(row.created_at)! })

const nameTaken = (name: string) => apiError("conflict", `A tag named ${JSON.stringify(name)} already exists`)

export const listTags = async (sql: Sql, workspaceId: string): Promise<Array<Tag>> =>
  (await sql<TagRow[]>`SELECT id, name, color, created_at FROM tags WHERE workspace_id = ${workspaceId}
                       ORDER BY lower(name), id`).map(toTag)

export const createTag = async (sql: Sql, scope: Scope, input: { name: string; color?: Tag["color"] }): Promise<Tag> =>
  (await sql.begin(async (tx) => {
    await lockWorkspaceQuota(tx, scope.workspaceId, "tags")
    const [{ n }] = await tx<{ n: number }[]>`SELECT count(*)::int AS n FROM tags WHERE workspace_id = ${scope.workspaceId}`
    if (n >= PLAN_LIMITS[scope.plan].tags) throw limitReached(scope.plan, "tags")
    try {
      const [row] = await tx.savepoint((sp) => sp<TagRow[]>`
        INSERT INTO tags (id, workspace_id, name, color)
        VALUES (${newId("tag")}, ${scope.workspaceId}, ${input.name}, ${input.color ?? null})
        RETURNING id, name, color, created_at`)
      return toTag(row)
    } catch (error) {
      throw isUniqueViolation(error) ? nameTaken(input.name) : error
    }
  })) as Tag

export const updateTag = async (
  sql: Sql,
  workspaceId: string,
  id: string,
  input: { name?: string; color?: Tag["color"] }
): Promise<Tag> => {
  const changes: Record<string, unknown> = {}
  if (input.name !== undefined) changes.name = input.name
  if (input.color !== undefined) changes.color = input.color
  try {
    const rows = Object.keys(changes).length === 0
      ? await sql<TagRow[]>`SELECT id, name, color, created_at FROM tags WHERE workspace_id = ${workspaceId} AND id = ${id}`
      : await sql<TagRow[]>`UPDATE tags SET ${sql(changes)} WHERE workspace_id = ${workspaceId} AND id = ${id}
                            RETURNING id, name, color, created_at`
    if (rows[0] === undefined) throw notFound("Tag")
    return toTag(rows[0])
  } catch (error) {
    throw isUniqueViolation(error) ? nameTaken(input.name ?? "") : error
  }
}

/** The tag's links stay, untagged (link_tags cascades). */
export const deleteTag = async (sql: Sql, workspaceId: string, id: string): Promise<void> => {
  const rows = await sql`DELETE FROM tags WHERE workspace_id = ${workspaceId} AND id = ${id} RETURNING id`
  if (rows.length === 0) throw notFound("Tag")
}
