import type { Sql, TransactionSql } from "postgres"
import { newId } from "../../shared/ids.ts"
import { displayPrefix, generateApiKey, hashApiKey } from "../auth/apiKeys.ts"
import { toIso } from "../kernel/fields.ts"
import type { Role } from "../kernel/Principal.ts"

/**
 * The API keys of a workspace, in plain SQL shared by the /v1/keys endpoints and the CLI. A key
 * acts as its user (`user_id`) with its own role and scope.
 */

export type KeyScope = "all" | "read"

export interface KeyListing {
  readonly id: string
  readonly name: string
  readonly prefix: string
  readonly role: Role
  readonly scope: KeyScope
  readonly createdBy: { readonly id: string; readonly email: string | null } | null
  readonly createdAt: string
  readonly lastUsedAt: string | null
}

interface KeyRow {
  id: string
  name: string
  display_prefix: string
  role: Role
  scope: KeyScope
  created_by: string | null
  creator_email: string | null
  created_at: Date
  last_used_at: Date | null
}

const toListing = (row: KeyRow): KeyListing => ({
  id: row.id,
  name: row.name,
  prefix: row.display_prefix,
  role: row.role,
  scope: row.scope,
  createdBy: row.created_by === null ? null : { id: row.created_by, email: row.creator_email },
  createdAt: toIso(row.created_at)!,
  lastUsedAt: toIso(row.last_used_at) ?? null
})

/** The workspace's keys that are not revoked, newest first. */
export const listKeys = async (sql: Sql | TransactionSql, workspaceId: string): Promise<Array<KeyListing>> =>
  (await sql<KeyRow[]>`
    SELECT k.id, k.name, k.display_prefix, k.role, k.scope, k.created_by, u.email AS creator_email, k.created_at, k.last_used_at
    FROM api_keys k LEFT JOIN users u ON u.id = k.created_by
    WHERE k.workspace_id = ${workspaceId} AND k.revoked_at IS NULL
    ORDER BY k.created_at DESC, k.id DESC`).map(toListing)

/** A new key; the returned `key` is the only time it exists outside its hash. */
export const insertKey = async (
  sql: Sql | TransactionSql,
  input: {
    readonly workspaceId: string
    readonly userId: string
    readonly name: string
    readonly role: Role
    readonly scope: KeyScope
    readonly createdBy: string | null
  }
): Promise<KeyListing & { readonly key: string }> => {
  const key = generateApiKey()
  const id = newId("key")
  await sql`INSERT INTO api_keys (id, workspace_id, user_id, key_hash, display_prefix, name, role, scope, created_by)
            VALUES (${id}, ${input.workspaceId}, ${input.userId}, ${hashApiKey(key)}, ${displayPrefix(key)},
                    ${input.name}, ${input.role}, ${input.scope}, ${input.createdBy})`
  const [row] = await sql<KeyRow[]>`
    SELECT k.id, k.name, k.display_prefix, k.role, k.scope, k.created_by, u.email AS creator_email, k.created_at, k.last_used_at
    FROM api_keys k LEFT JOIN users u ON u.id = k.created_by WHERE k.id = ${id}`
  return { ...toListing(row), key }
}

/**
 * Revokes a key (of the workspace, when given); false when there is no such live key. Every
 * request looks its key up, so every control process refuses it from the next request on.
 */
export const revokeKey = async (sql: Sql | TransactionSql, id: string, workspaceId?: string): Promise<boolean> => {
  const rows = await sql`
    UPDATE api_keys SET revoked_at = now()
    WHERE id = ${id} AND revoked_at IS NULL ${workspaceId === undefined ? sql`` : sql`AND workspace_id = ${workspaceId}`}
    RETURNING id`
  return rows.length > 0
}
