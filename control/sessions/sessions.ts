import { createHash } from "node:crypto"
import type { Sql } from "postgres"
import { newId, randomBase62 } from "../../shared/ids.ts"
import type { Role } from "../kernel/Principal.ts"
import type { Plan } from "../kernel/plans.ts"

/** Sessions in plain SQL: only a token's SHA-256 is stored, like API keys. */

export const hashToken = (token: string): string => createHash("sha256").update(token).digest("hex")

export interface SessionPrincipalRow {
  session_id: string
  user_id: string
  workspace_id: string
  role: Role
  plan: Plan
  last_seen_at: Date
  /** Signed in with a one-time password not yet replaced: only the password change is open to it. */
  must_change_password: boolean
}

/**
 * The live session of a token: not revoked, used within the idle time, its user still a member
 * of its workspace. Looked up on every request, so a revoked session ends at once everywhere.
 */
export const findSession = async (sql: Sql, token: string, idleHours: number): Promise<SessionPrincipalRow | undefined> =>
  (await sql<SessionPrincipalRow[]>`
    SELECT s.id AS session_id, s.user_id, s.workspace_id, m.role, w.plan, s.last_seen_at, u.must_change_password
    FROM sessions s
    JOIN memberships m ON m.workspace_id = s.workspace_id AND m.user_id = s.user_id
    JOIN workspaces w ON w.id = s.workspace_id
    JOIN users u ON u.id = s.user_id
    WHERE s.token_hash = ${hashToken(token)} AND s.revoked_at IS NULL
      AND s.last_seen_at > now() - make_interval(secs => ${idleHours * 3600})`)[0]

export interface Account {
  readonly id: string
  readonly email: string
  readonly passwordHash: string | null
}

export const findAccount = async (sql: Sql, email: string): Promise<Account | undefined> => {
  const [row] = await sql<{ id: string; email: string; password_hash: string | null }[]>`
    SELECT id, email, password_hash FROM users WHERE lower(email) = ${email.trim().toLowerCase()}`
  return row === undefined ? undefined : { id: row.id, email: row.email, passwordHash: row.password_hash }
}

export interface Membership {
  readonly id: string
  readonly name: string
  readonly plan: Plan
  readonly role: Role
}

/** The user's workspaces, oldest membership first (the one a sign-in without a choice lands in). */
export const memberships = async (sql: Sql, userId: string): Promise<Array<Membership>> =>
  sql<Membership[]>`
    SELECT w.id, w.name, w.plan, m.role FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
    WHERE m.user_id = ${userId} ORDER BY m.created_at, w.id`

export const createSession = async (sql: Sql, userId: string, workspaceId: string): Promise<string> => {
  const token = randomBase62(43)
  await sql`INSERT INTO sessions (id, token_hash, user_id, workspace_id) VALUES (${newId("ses")}, ${hashToken(token)}, ${userId}, ${workspaceId})`
  return token
}

export const switchWorkspace = (sql: Sql, sessionId: string, workspaceId: string) =>
  sql`UPDATE sessions SET workspace_id = ${workspaceId}, last_seen_at = now() WHERE id = ${sessionId}`

export const revokeSession = (sql: Sql, sessionId: string) => sql`UPDATE sessions SET revoked_at = now() WHERE id = ${sessionId}`

export interface Profile {
  readonly email: string
  /** The password is a one-time one, to be replaced before anything else. */
  readonly mustChangePassword: boolean
}

export const userProfile = async (sql: Sql, userId: string): Promise<Profile> => {
  const [row] = await sql<{ email: string | null; must_change_password: boolean }[]>`
    SELECT email, must_change_password FROM users WHERE id = ${userId}`
  return { email: row?.email ?? "", mustChangePassword: row?.must_change_password ?? false }
}
