import type { Sql, TransactionSql } from "postgres"
import { EMAIL } from "../../shared/config.ts"
import { newId } from "../../shared/ids.ts"
import { PLANS, type Plan } from "../plans/plans.ts"
import { generatePassword, hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "./passwords.ts"

/**
 * People and their memberships, as the CLI and the first start manage them (plain SQL on the
 * `postgres` client; the API's session endpoints read the same tables).
 */

export type Role = "admin" | "member"

/** A refusal the CLI prints as is (exit 1). */
export class PeopleError extends Error {}

export const normalizeEmail = (email: string): string => email.trim().toLowerCase()

const checkEmail = (email: string): string => {
  const normalized = normalizeEmail(email)
  if (!EMAIL.test(normalized)) throw new PeopleError(`${JSON.stringify(email)} is not an email address`)
  return normalized
}

/** The password given, checked, or a generated one. */
const passwordOrGenerated = (given: string | undefined): { password: string; generated: boolean } => {
  if (given === undefined) return { password: generatePassword(), generated: true }
  if (given.length < MIN_PASSWORD_LENGTH || given.length > MAX_PASSWORD_LENGTH) {
    throw new PeopleError(`A password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`)
  }
  return { password: given, generated: false }
}

export interface CreatedUser {
  readonly user: { readonly id: string; readonly email: string }
  readonly workspaceId: string
  readonly role: Role
  /** Set when this call made the account: the password to print (once) unless it was given. */
  readonly password?: string
  /** False when the email already had an account: it became a member of one more workspace. */
  readonly created: boolean
}

/**
 * A person in a workspace: a new account with a password (given or generated), or an existing
 * account (same email) joining one more workspace, its password unchanged.
 */
export const createUser = async (
  sql: Sql | TransactionSql,
  input: { readonly email: string; readonly workspaceId: string; readonly role: Role; readonly password?: string }
): Promise<CreatedUser> => {
  const email = checkEmail(input.email)
  if (input.role !== "admin" && input.role !== "member") throw new PeopleError("--role must be admin or member")
  const [workspace] = await sql`SELECT id FROM workspaces WHERE id = ${input.workspaceId}`
  if (workspace === undefined) throw new PeopleError(`No workspace with id ${input.workspaceId}`)
  const [existing] = await sql<{ id: string }[]>`SELECT id FROM users WHERE lower(email) = ${email}`
  if (existing !== undefined) {
    const [member] = await sql`SELECT role FROM memberships WHERE workspace_id = ${input.workspaceId} AND user_id = ${existing.id}`
    if (member !== undefined) throw new PeopleError(`${email} is already a ${member.role} of ${input.workspaceId}`)
    await sql`INSERT INTO memberships (workspace_id, user_id, role) VALUES (${input.workspaceId}, ${existing.id}, ${input.role})`
    return { user: { id: existing.id, email }, workspaceId: input.workspaceId, role: input.role, created: false }
  }
  const { password, generated } = passwordOrGenerated(input.password)
  const id = newId("usr")
  await sql`INSERT INTO users (id, email, password_hash) VALUES (${id}, ${email}, ${await hashPassword(password)})`
  await sql`INSERT INTO memberships (workspace_id, user_id, role) VALUES (${input.workspaceId}, ${id}, ${input.role})`
  return { user: { id, email }, workspaceId: input.workspaceId, role: input.role, created: true, ...(generated ? { password } : {}) }
}

/** A new password (given or generated); every session of the account ends. */
export const resetPassword = async (
  sql: Sql,
  input: { readonly email: string; readonly password?: string }
): Promise<{ readonly user: { readonly id: string; readonly email: string }; readonly password?: string }> => {
  const email = checkEmail(input.email)
  const { password, generated } = passwordOrGenerated(input.password)
  const hash = await hashPassword(password)
  return sql.begin(async (tx) => {
    const [user] = await tx<{ id: string }[]>`UPDATE users SET password_hash = ${hash} WHERE lower(email) = ${email} RETURNING id`
    if (user === undefined) throw new PeopleError(`No user with email ${email}`)
    await tx`UPDATE sessions SET revoked_at = now() WHERE user_id = ${user.id} AND revoked_at IS NULL`
    return { user: { id: user.id, email }, ...(generated ? { password } : {}) }
  }) as Promise<{ readonly user: { readonly id: string; readonly email: string }; readonly password?: string }>
}

export interface UserListing {
  readonly id: string
  readonly email: string
  readonly workspaceId: string
  readonly role: Role
  readonly createdAt: string
}

/** People (accounts with an email) and their memberships, one row per membership. */
export const listUsers = async (sql: Sql, workspaceId: string | undefined): Promise<Array<UserListing>> => {
  if (workspaceId !== undefined) await requireWorkspace(sql, workspaceId)
  const rows = await sql<{ id: string; email: string; workspace_id: string; role: Role; created_at: Date }[]>`
    SELECT u.id, u.email, m.workspace_id, m.role, u.created_at
    FROM users u JOIN memberships m ON m.user_id = u.id
    WHERE u.email IS NOT NULL ${workspaceId === undefined ? sql`` : sql`AND m.workspace_id = ${workspaceId}`}
    ORDER BY u.email, m.workspace_id`
  return rows.map((r) => ({ id: r.id, email: r.email, workspaceId: r.workspace_id, role: r.role, createdAt: r.created_at.toISOString() }))
}

export const requireWorkspace = async (sql: Sql | TransactionSql, workspaceId: string) => {
  const [workspace] = await sql`SELECT id FROM workspaces WHERE id = ${workspaceId}`
  if (workspace === undefined) throw new PeopleError(`No workspace with id ${workspaceId}`)
}

export interface WorkspaceListing {
  readonly id: string
  readonly name: string
  readonly slug: string
  readonly plan: Plan
  readonly createdAt: string
}

export const listWorkspaces = async (sql: Sql): Promise<Array<WorkspaceListing>> =>
  (await sql<{ id: string; name: string; slug: string; plan: Plan; created_at: Date }[]>`
    SELECT id, name, slug, plan, created_at FROM workspaces ORDER BY created_at, id`)
    .map((r) => ({ id: r.id, name: r.name, slug: r.slug, plan: r.plan, createdAt: r.created_at.toISOString() }))

export const setPlan = async (sql: Sql, workspaceId: string, plan: string): Promise<WorkspaceListing> => {
  if (!PLANS.includes(plan as Plan)) throw new PeopleError(`The plan must be one of ${PLANS.join(", ")}`)
  const [row] = await sql<{ id: string; name: string; slug: string; plan: Plan; created_at: Date }[]>`
    UPDATE workspaces SET plan = ${plan} WHERE id = ${workspaceId} RETURNING id, name, slug, plan, created_at`
  if (row === undefined) throw new PeopleError(`No workspace with id ${workspaceId}`)
  return { id: row.id, name: row.name, slug: row.slug, plan: row.plan, createdAt: row.created_at.toISOString() }
}
