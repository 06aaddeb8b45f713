import { Effect } from "effect"
import { EMAIL } from "../../shared/email.ts"
import type { Database, DatabaseError, Queryable } from "../../shared/db/Database.ts"
import type { DatabaseUnavailable } from "../kernel/DatabaseUnavailable.ts"
import { newId } from "../../shared/ids.ts"
import { query, run, transaction } from "../db/sql.ts"
import { PLANS, type Plan } from "../kernel/plans.ts"
import type { Role } from "../kernel/Principal.ts"
import { PlanInvalid, WorkspaceUnknown } from "../kernel/workspaceRefusals.ts"
import { AlreadyMember, EmailInvalid, PasswordOutOfBounds, RoleInvalid, UserUnknown } from "./errors.ts"
import { generatePassword, hashPassword } from "../auth/passwords.ts"
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "./schema.ts"

/**
 * People and their memberships, as the CLI and the first start manage them; the API's session
 * endpoints read the same tables. Refusals are the tagged errors of ./errors.ts.
 */

export const normalizeEmail = (email: string): string => email.trim().toLowerCase()

const checkEmail = (email: string) => {
  const normalized = normalizeEmail(email)
  return EMAIL.test(normalized)
    ? Effect.succeed(normalized)
    : Effect.fail(new EmailInvalid({ message: `${JSON.stringify(email)} is not an email address` }))
}

export const checkRole = (role: string): Effect.Effect<Role, RoleInvalid> =>
  role === "admin" || role === "member" ? Effect.succeed(role) : Effect.fail(new RoleInvalid({ message: "--role must be admin or member" }))

/** argon2id fails only on a bug of ours: a defect. */
const hashOf = (password: string) => Effect.orDie(Effect.tryPromise(() => hashPassword(password)))

/** The password given, checked, or a generated one. */
const passwordOrGenerated = (given: string | undefined) => {
  if (given === undefined) return Effect.succeed({ password: generatePassword(), generated: true })
  if (given.length < MIN_PASSWORD_LENGTH || given.length > MAX_PASSWORD_LENGTH) {
    return Effect.fail(new PasswordOutOfBounds({ message: `A password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters` }))
  }
  return Effect.succeed({ password: given, generated: false })
}

/** In the caller's transaction: WorkspaceUnknown unless the workspace exists. */
export const requireWorkspace = (sql: Queryable, workspaceId: string) =>
  Effect.flatMap(
    run(() => sql`SELECT id FROM workspaces WHERE id = ${workspaceId}`),
    ([workspace]) => (workspace === undefined ? Effect.fail(WorkspaceUnknown.of(workspaceId)) : Effect.void)
  )

/** On the pool: WorkspaceUnknown unless the workspace exists. */
export const workspaceExists = (workspaceId: string) =>
  Effect.flatMap(
    query((sql) => sql`SELECT id FROM workspaces WHERE id = ${workspaceId}`),
    ([workspace]) => (workspace === undefined ? Effect.fail(WorkspaceUnknown.of(workspaceId)) : Effect.void)
  )

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
 * A person in a workspace, on `sql` (the pool, or the caller's transaction): a new account with a
 * password (given, or generated and then one-time: the first sign-in must choose another), or an
 * existing account (same email) joining one more workspace, its password unchanged.
 */
export const createUserOn = (
  sql: Queryable,
  input: { readonly email: string; readonly workspaceId: string; readonly role: string; readonly password?: string }
) =>
  Effect.gen(function*(): Effect.fn.Return<CreatedUser, EmailInvalid | RoleInvalid | WorkspaceUnknown | AlreadyMember | PasswordOutOfBounds | DatabaseUnavailable | DatabaseError, Database> {
    const email = yield* checkEmail(input.email)
    const role = yield* checkRole(input.role)
    yield* requireWorkspace(sql, input.workspaceId)
    const [existing] = yield* run(() => sql<{ id: string }[]>`SELECT id FROM users WHERE lower(email) = ${email}`)
    if (existing !== undefined) {
      const [member] = yield* run(() => sql<{ role: Role }[]>`SELECT role FROM memberships WHERE workspace_id = ${input.workspaceId} AND user_id = ${existing.id}`)
      if (member !== undefined) return yield* new AlreadyMember({ message: `${email} is already a ${member.role} of ${input.workspaceId}` })
      yield* run(() => sql`INSERT INTO memberships (workspace_id, user_id, role) VALUES (${input.workspaceId}, ${existing.id}, ${role})`)
      return { user: { id: existing.id, email }, workspaceId: input.workspaceId, role, created: false } satisfies CreatedUser
    }
    const { password, generated } = yield* passwordOrGenerated(input.password)
    const hash = yield* hashOf(password)
    const id = newId("usr")
    // A generated password was printed for someone else to pass on: its first use must replace it.
    yield* run(() => sql`INSERT INTO users (id, email, password_hash, must_change_password) VALUES (${id}, ${email}, ${hash}, ${generated})`)
    yield* run(() => sql`INSERT INTO memberships (workspace_id, user_id, role) VALUES (${input.workspaceId}, ${id}, ${role})`)
    return { user: { id, email }, workspaceId: input.workspaceId, role, created: true, ...(generated ? { password } : {}) } satisfies CreatedUser
  })

/** createUserOn in a transaction of its own. */
export const createUser = (input: { readonly email: string; readonly workspaceId: string; readonly role: string; readonly password?: string }) =>
  transaction((tx) => createUserOn(tx, input))

/**
 * A new password (given or generated, then one-time: see createUserOn); every session of the
 * account ends.
 */
export const resetPassword = (input: { readonly email: string; readonly password?: string }) =>
  Effect.gen(function*() {
    const email = yield* checkEmail(input.email)
    const { password, generated } = yield* passwordOrGenerated(input.password)
    const hash = yield* hashOf(password)
    return yield* transaction((tx) =>
      Effect.gen(function*() {
        const [user] = yield* run(() => tx<{ id: string }[]>`
          UPDATE users SET password_hash = ${hash}, must_change_password = ${generated} WHERE lower(email) = ${email} RETURNING id`)
        if (user === undefined) return yield* new UserUnknown({ message: `No user with email ${email}` })
        yield* run(() => tx`UPDATE sessions SET revoked_at = now() WHERE user_id = ${user.id} AND revoked_at IS NULL`)
        return { user: { id: user.id, email }, ...(generated ? { password } : {}) }
      })
    )
  })

export interface UserListing {
  readonly id: string
  readonly email: string
  readonly workspaceId: string
  readonly role: Role
  readonly createdAt: string
}

/** People (accounts with an email) and their memberships, one row per membership. */
export const listUsers = (workspaceId: string | undefined) =>
  Effect.gen(function*() {
    if (workspaceId !== undefined) yield* workspaceExists(workspaceId)
    const rows = yield* query((sql) =>
      sql<{ id: string; email: string; workspace_id: string; role: Role; created_at: Date }[]>`
        SELECT u.id, u.email, m.workspace_id, m.role, u.created_at
        FROM users u JOIN memberships m ON m.user_id = u.id
        WHERE u.email IS NOT NULL ${workspaceId === undefined ? sql`` : sql`AND m.workspace_id = ${workspaceId}`}
        ORDER BY u.email, m.workspace_id`)
    return rows.map((r): UserListing => ({ id: r.id, email: r.email, workspaceId: r.workspace_id, role: r.role, createdAt: r.created_at.toISOString() }))
  })

export interface WorkspaceListing {
  readonly id: string
  readonly name: string
  readonly slug: string
  readonly plan: Plan
  readonly createdAt: string
}

type WorkspaceRow = { id: string; name: string; slug: string; plan: Plan; created_at: Date }
const toListing = (r: WorkspaceRow): WorkspaceListing => ({ id: r.id, name: r.name, slug: r.slug, plan: r.plan, createdAt: r.created_at.toISOString() })

export const listWorkspaces = () =>
  Effect.map(query((sql) => sql<WorkspaceRow[]>`SELECT id, name, slug, plan, created_at FROM workspaces ORDER BY created_at, id`), (rows) => rows.map(toListing))

export const checkPlan = (plan: string, what = "The plan"): Effect.Effect<Plan, PlanInvalid> =>
  PLANS.includes(plan as Plan) ? Effect.succeed(plan as Plan) : Effect.fail(new PlanInvalid({ message: `${what} must be one of ${PLANS.join(", ")}` }))

export const setPlan = (workspaceId: string, plan: string) =>
  Effect.gen(function*() {
    const checked = yield* checkPlan(plan)
    const [row] = yield* query((sql) =>
      sql<WorkspaceRow[]>`UPDATE workspaces SET plan = ${checked} WHERE id = ${workspaceId} RETURNING id, name, slug, plan, created_at`)
    if (row === undefined) return yield* WorkspaceUnknown.of(workspaceId)
    return toListing(row)
  })
