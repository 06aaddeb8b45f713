import type { Sql, TransactionSql } from "postgres"
import { newId, randomBase62 } from "../../shared/ids.ts"
import { insertKey } from "../keys/keys.ts"
import { createUser, type Role } from "../people/users.ts"
import { type DomainRecordRow as DomainRow, toDomainRecord } from "../../shared/links/linkQueries.ts"
import { writeEvents } from "../outbox/outbox.ts"
import type { Plan } from "../plans/plans.ts"

export type { Role }

export interface ProvisionedWorkspace {
  readonly workspace: { readonly id: string; readonly name: string; readonly slug: string; readonly plan: Plan }
  readonly domain: string
  readonly apiKey: string
}

/** A DNS label from a workspace name: `Acme Inc.` → `acme-inc`. */
export const slugifyName = (name: string): string =>
  name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/g, "")

/** A key of its own user (no email: nobody signs in as it), as the CLI's keys have always been. */
const insertUserWithKey = async (tx: TransactionSql, workspaceId: string, role: Role) => {
  const userId = newId("usr")
  await tx`INSERT INTO users (id) VALUES (${userId})`
  await tx`INSERT INTO memberships (workspace_id, user_id, role) VALUES (${workspaceId}, ${userId}, ${role})`
  const { key } = await insertKey(tx, { workspaceId, userId, name: "CLI key", role, scope: "all", createdBy: null })
  return key
}

/**
 * A workspace with its admin, that admin's key, and its subdomain `{slug}.{shortDomain}`:
 * verified and primary from the start, announced to the engines through the outbox.
 */
export const createWorkspace = async (
  sql: Sql | TransactionSql,
  input: { readonly name: string; readonly plan: Plan; readonly shortDomain: string }
): Promise<ProvisionedWorkspace> =>
  inTransaction(sql, async (tx) => {
    const base = slugifyName(input.name) || "workspace"
    let slug = base
    // Names repeat; slugs (and so subdomains) may not.
    for (let attempt = 0; ; attempt++) {
      const taken = await tx`SELECT 1 FROM workspaces WHERE slug = ${slug}
                             UNION ALL SELECT 1 FROM domains WHERE host = ${`${slug}.${input.shortDomain}`}`
      if (taken.length === 0) break
      slug = `${base}-${attempt < 3 ? attempt + 2 : randomBase62(6).toLowerCase()}`
    }
    const id = newId("ws")
    await tx`INSERT INTO workspaces (id, name, slug, plan) VALUES (${id}, ${input.name}, ${slug}, ${input.plan})`
    const host = `${slug}.${input.shortDomain}`
    const [domain] = await tx<DomainRow[]>`
      INSERT INTO domains (id, workspace_id, host, kind, status, is_primary, verified_at, verification_token)
      VALUES (${newId("dom")}, ${id}, ${host}, 'subdomain', 'verified', true, now(), ${randomBase62(32)})
      RETURNING id, workspace_id, host, status, root_redirect_url, not_found_url, expired_url`
    await writeEvents(tx, [{ type: "domain.upserted", domain: toDomainRecord(domain) }])
    const apiKey = await insertUserWithKey(tx, id, "admin")
    return { workspace: { id, name: input.name, slug, plan: input.plan }, domain: host, apiKey }
  }) as Promise<ProvisionedWorkspace>

/** A transaction of its own, or a savepoint when the caller already holds one. */
const inTransaction = <A>(sql: Sql | TransactionSql, run: (tx: TransactionSql) => Promise<A>): Promise<A> =>
  ("savepoint" in sql ? sql.savepoint(run) : sql.begin(run)) as Promise<A>

export interface FirstStart extends ProvisionedWorkspace {
  readonly admin: { readonly email: string; readonly password: string }
}

/**
 * On a database with no workspace yet, creates the first one (pro, with its admin key) and the
 * admin person who signs in with `adminEmail` and a generated password. Under a lock, so control
 * processes starting together on an empty database create exactly one.
 */
export const ensureFirstWorkspace = (sql: Sql, shortDomain: string, adminEmail: string): Promise<FirstStart | undefined> =>
  sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(7342002)`
    const [any] = await tx`SELECT 1 FROM workspaces LIMIT 1`
    if (any !== undefined) return undefined
    const created = await createWorkspace(tx, { name: "My workspace", plan: "pro", shortDomain })
    const admin = await createUser(tx, { email: adminEmail, workspaceId: created.workspace.id, role: "admin" })
    // The printed key is the admin's own (it acts as them and lists as theirs); the user made for it goes.
    const [key] = await tx<{ user_id: string }[]>`SELECT user_id FROM api_keys WHERE workspace_id = ${created.workspace.id}`
    await tx`UPDATE api_keys SET user_id = ${admin.user.id}, created_by = ${admin.user.id}, name = 'First key'
             WHERE workspace_id = ${created.workspace.id}`
    if (key !== undefined && key.user_id !== admin.user.id) await tx`DELETE FROM users WHERE id = ${key.user_id}`
    return { ...created, admin: { email: admin.user.email, password: admin.password! } }
  }) as Promise<FirstStart | undefined>

export class UnknownWorkspaceError extends Error {}

/** A new user of the workspace with the given role, and a key acting as that user. */
export const createKey = async (
  sql: Sql,
  input: { readonly workspaceId: string; readonly role: Role }
): Promise<{ readonly apiKey: string; readonly role: Role }> =>
  sql.begin(async (tx) => {
    const [workspace] = await tx`SELECT id FROM workspaces WHERE id = ${input.workspaceId}`
    if (workspace === undefined) throw new UnknownWorkspaceError(`No workspace with id ${input.workspaceId}`)
    const apiKey = await insertUserWithKey(tx, input.workspaceId, input.role)
    return { apiKey, role: input.role }
  }) as Promise<{ readonly apiKey: string; readonly role: Role }>

