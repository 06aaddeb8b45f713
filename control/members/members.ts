import { createHash } from "node:crypto"
import type { Sql, TransactionSql } from "postgres"
import { newId, randomBase62 } from "../../shared/ids.ts"
import type { Role } from "../kernel/Principal.ts"
import type { Invitation, Member } from "./schema.ts"

/** Members and invitations in plain SQL; an invitation's token is kept only as its SHA-256. */

/** How long an invitation link works. */
export const INVITATION_DAYS = 7

export const hashInvitationToken = (token: string): string => createHash("sha256").update(token).digest("hex")

type MemberRow = { user_id: string; email: string; role: Role; created_at: Date }
const toMember = (r: MemberRow): Member => ({ userId: r.user_id, email: r.email, role: r.role, joinedAt: r.created_at.toISOString() })

export const listMembers = async (sql: Sql, workspaceId: string): Promise<Array<Member>> =>
  (await sql<MemberRow[]>`
    SELECT m.user_id, u.email, m.role, m.created_at FROM memberships m JOIN users u ON u.id = m.user_id
    WHERE m.workspace_id = ${workspaceId} AND u.email IS NOT NULL ORDER BY m.created_at, u.email`).map(toMember)

/**
 * Locks the workspace's memberships (the role check and the change are one step, so two admins
 * demoting each other at once cannot leave none) and says how many people (accounts with an email,
 * not the CLI's key-only users) are its admins: someone must be able to sign in and manage it.
 */
const lockedAdmins = async (tx: TransactionSql, workspaceId: string): Promise<number> => {
  const rows = await tx<{ role: Role; email: string | null }[]>`
    SELECT m.role, u.email FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.workspace_id = ${workspaceId} FOR UPDATE OF m`
  return rows.filter((r) => r.role === "admin" && r.email !== null).length
}

export type MemberChange = { readonly member: Member } | "unknown" | "last_admin"

export const changeRole = async (tx: TransactionSql, workspaceId: string, userId: string, role: Role): Promise<MemberChange> => {
  const admins = await lockedAdmins(tx, workspaceId)
  const [current] = await tx<{ role: Role }[]>`SELECT role FROM memberships WHERE workspace_id = ${workspaceId} AND user_id = ${userId}`
  if (current === undefined) return "unknown"
  if (current.role === "admin" && role !== "admin" && admins <= 1) return "last_admin"
  await tx`UPDATE memberships SET role = ${role} WHERE workspace_id = ${workspaceId} AND user_id = ${userId}`
  // A key never acts as more than its user's role (see Admission), so nothing else changes.
  const [row] = await tx<MemberRow[]>`
    SELECT m.user_id, u.email, m.role, m.created_at FROM memberships m JOIN users u ON u.id = m.user_id
    WHERE m.workspace_id = ${workspaceId} AND m.user_id = ${userId} AND u.email IS NOT NULL`
  return row === undefined ? "unknown" : { member: toMember(row) }
}

/** Out of the workspace: the membership goes, and with it the sessions in it and the keys they made there. */
export const removeMember = async (tx: TransactionSql, workspaceId: string, userId: string): Promise<"removed" | "unknown" | "last_admin"> => {
  const admins = await lockedAdmins(tx, workspaceId)
  const [current] = await tx<{ role: Role }[]>`
    SELECT m.role FROM memberships m JOIN users u ON u.id = m.user_id
    WHERE m.workspace_id = ${workspaceId} AND m.user_id = ${userId} AND u.email IS NOT NULL`
  if (current === undefined) return "unknown"
  if (current.role === "admin" && admins <= 1) return "last_admin"
  await tx`DELETE FROM memberships WHERE workspace_id = ${workspaceId} AND user_id = ${userId}`
  await tx`UPDATE sessions SET revoked_at = now() WHERE user_id = ${userId} AND workspace_id = ${workspaceId} AND revoked_at IS NULL`
  await tx`UPDATE api_keys SET revoked_at = now() WHERE user_id = ${userId} AND workspace_id = ${workspaceId} AND revoked_at IS NULL`
  return "removed"
}

type InvitationRow = { id: string; email: string; role: Role; invited_by: string | null; created_at: Date; expires_at: Date }
const toInvitation = (r: InvitationRow): Invitation => ({
  id: r.id,
  email: r.email,
  role: r.role,
  invitedBy: r.invited_by,
  createdAt: r.created_at.toISOString(),
  expiresAt: r.expires_at.toISOString()
})

export const listInvitations = async (sql: Sql, workspaceId: string): Promise<Array<Invitation>> =>
  (await sql<InvitationRow[]>`
    SELECT i.id, i.email, i.role, u.email AS invited_by, i.created_at, i.expires_at
    FROM invitations i LEFT JOIN users u ON u.id = i.invited_by
    WHERE i.workspace_id = ${workspaceId} AND i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > now()
    ORDER BY i.created_at`).map(toInvitation)

export type NewInvitation = { readonly invitation: Invitation; readonly token: string } | "member" | "invited"

/** A new invitation, unless the email is a member already or has one waiting (under a lock on the workspace's invitations). */
export const createInvitation = async (
  tx: TransactionSql,
  input: { readonly workspaceId: string; readonly email: string; readonly role: Role; readonly invitedBy: string }
): Promise<NewInvitation> => {
  await tx`SELECT 1 FROM workspaces WHERE id = ${input.workspaceId} FOR UPDATE`
  const [member] = await tx`
    SELECT 1 FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.workspace_id = ${input.workspaceId} AND lower(u.email) = ${input.email}`
  if (member !== undefined) return "member"
  const [waiting] = await tx`
    SELECT 1 FROM invitations WHERE workspace_id = ${input.workspaceId} AND lower(email) = ${input.email}
      AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()`
  if (waiting !== undefined) return "invited"
  const token = randomBase62(32)
  const [row] = await tx<InvitationRow[]>`
    INSERT INTO invitations (id, workspace_id, email, role, token_hash, invited_by, expires_at)
    VALUES (${newId("inv")}, ${input.workspaceId}, ${input.email}, ${input.role}, ${hashInvitationToken(token)}, ${input.invitedBy},
            now() + make_interval(days => ${INVITATION_DAYS}))
    RETURNING id, email, role, invited_by, created_at, expires_at`
  const [inviter] = await tx<{ email: string | null }[]>`SELECT email FROM users WHERE id = ${input.invitedBy}`
  return { invitation: toInvitation({ ...row!, invited_by: inviter?.email ?? null }), token }
}

export const revokeInvitation = async (sql: Sql, workspaceId: string, id: string): Promise<boolean> =>
  (await sql`UPDATE invitations SET revoked_at = now() WHERE id = ${id} AND workspace_id = ${workspaceId}
      AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now() RETURNING id`).length > 0

export interface PendingInvitation {
  readonly id: string
  readonly workspaceId: string
  readonly workspaceName: string
  readonly email: string
  readonly role: Role
  /** The account of that email, when there is one. */
  readonly account: { readonly id: string; readonly passwordHash: string | null } | undefined
}

export const findPendingInvitation = async (sql: Sql | TransactionSql, token: string): Promise<PendingInvitation | undefined> => {
  const [row] = await sql<{ id: string; workspace_id: string; name: string; email: string; role: Role; user_id: string | null; password_hash: string | null }[]>`
    SELECT i.id, i.workspace_id, w.name, i.email, i.role, u.id AS user_id, u.password_hash
    FROM invitations i JOIN workspaces w ON w.id = i.workspace_id LEFT JOIN users u ON lower(u.email) = lower(i.email)
    WHERE i.token_hash = ${hashInvitationToken(token)} AND i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > now()`
  if (row === undefined) return undefined
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    workspaceName: row.name,
    email: row.email,
    role: row.role,
    account: row.user_id === null ? undefined : { id: row.user_id, passwordHash: row.password_hash }
  }
}

/**
 * Uses the invitation, once: the account (made now with `newAccount`'s hash, or the existing one)
 * joins the workspace with the invitation's role. Undefined when it was used or revoked meanwhile.
 */
export const acceptInvitation = async (
  tx: TransactionSql,
  invitation: PendingInvitation,
  newAccount: { readonly passwordHash: string } | undefined
): Promise<string | undefined> => {
  const [used] = await tx`UPDATE invitations SET accepted_at = now() WHERE id = ${invitation.id}
      AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now() RETURNING id`
  if (used === undefined) return undefined
  let userId = invitation.account?.id
  if (userId === undefined) {
    userId = newId("usr")
    await tx`INSERT INTO users (id, email, password_hash) VALUES (${userId}, ${invitation.email}, ${newAccount!.passwordHash})`
  }
  await tx`INSERT INTO memberships (workspace_id, user_id, role) VALUES (${invitation.workspaceId}, ${userId}, ${invitation.role})
           ON CONFLICT DO NOTHING`
  return userId
}

/** Every other session of the person ends; the one asking goes on. */
export const endOtherSessions = async (sql: Sql, userId: string, keepSessionId: string): Promise<number> =>
  (await sql`UPDATE sessions SET revoked_at = now() WHERE user_id = ${userId} AND id <> ${keepSessionId} AND revoked_at IS NULL RETURNING id`).length
