import type { Sql } from "postgres"
import { newId } from "../../shared/ids.ts"
import { isUniqueViolation } from "../../shared/db/Database.ts"
import { apiError, notFound } from "../http/ApiError.ts"
import { toIso } from "../http/fields.ts"
import { lockWorkspaceQuota, type Scope } from "../links/repository.ts"
import { limitReached, PLAN_LIMITS } from "../plans/plans.ts"
import type { Folder } from "./schema.ts"

interface FolderRow {
  id: string
  name: string
  created_at: Date
}

const toFolder = (row: FolderRow): Folder => ({ id: row.id, name: row.name, createdAt: toIso(row.created_at)! })

const nameTaken = (name: string) => apiError("conflict", `A folder named ${JSON.stringify(name)} already exists`)

export const listFolders = async (sql: Sql, workspaceId: string): Promise<Array<Folder>> =>
  (await sql<FolderRow[]>`SELECT id, name, created_at FROM folders WHERE workspace_id = ${workspaceId}
                          ORDER BY lower(name), id`).map(toFolder)

export const createFolder = async (sql: Sql, scope: Scope, name: string): Promise<Folder> =>
  (await sql.begin(async (tx) => {
    await lockWorkspaceQuota(tx, scope.workspaceId, "folders")
    const [{ n }] = await tx<{ n: number }[]>`SELECT count(*)::int AS n FROM folders WHERE workspace_id = ${scope.workspaceId}`
    if (n >= PLAN_LIMITS[scope.plan].folders) throw limitReached(scope.plan, "folders")
    try {
      const [row] = await tx.savepoint((sp) => sp<FolderRow[]>`
        INSERT INTO folders (id, workspace_id, name) VALUES (${newId("fld")}, ${scope.workspaceId}, ${name})
        RETURNING id, name, created_at`)
      return toFolder(row)
    } catch (error) {
      throw isUniqueViolation(error) ? nameTaken(name) : error
    }
  })) as Folder

export const renameFolder = async (sql: Sql, workspaceId: string, id: string, name: string): Promise<Folder> => {
  try {
    const [row] = await sql<FolderRow[]>`UPDATE folders SET name = ${name} WHERE workspace_id = ${workspaceId} AND id = ${id}
                                         RETURNING id, name, created_at`
    if (row === undefined) throw notFound("Folder")
    return toFolder(row)
  } catch (error) {
    throw isUniqueViolation(error) ? nameTaken(name) : error
  }
}

/** The folder's links stay, outside any folder (folder_id is set null). */
export const deleteFolder = async (sql: Sql, workspaceId: string, id: string): Promise<void> => {
  const rows = await sql`DELETE FROM folders WHERE workspace_id = ${workspaceId} AND id = ${id} RETURNING id`
  if (rows.length === 0) throw notFound("Folder")
}
