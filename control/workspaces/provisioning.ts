import { Effect } from "effect"
import type { TransactionSql } from "postgres"
import { newId, randomBase62 } from "../../shared/ids.ts"
import { type DomainRecordRow as DomainRow, toDomainRecord } from "../../shared/links/linkQueries.ts"
import { run, transaction } from "../db/sql.ts"
import { insertKey } from "../keys/keys.ts"
import { writeEvents } from "../outbox/outbox.ts"
import type { Role } from "../kernel/Principal.ts"
import { checkRole, createUserOn, requireWorkspace } from "../people/users.ts"
import type { Plan } from "../kernel/plans.ts"
import { WorkspaceNameInvalid } from "../kernel/workspaceRefusals.ts"

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

/** A workspace's name as the CLI takes it: 1 to 100 characters once trimmed. */
export const checkWorkspaceName = (name: string) => {
  const trimmed = name.trim()
  return trimmed === "" || name.length > 100
    ? Effect.fail(new WorkspaceNameInvalid({ message: "--name must be 1 to 100 characters" }))
    : Effect.succeed(trimmed)
}

/** A key of its own user (no email: nobody signs in as it), as the CLI's keys have always been. */
const insertUserWithKey = (tx: TransactionSql, workspaceId: string, role: Role) =>
  Effect.gen(function*() {
    const userId = newId("usr")
    yield* run(() => tx`INSERT INTO users (id) VALUES (${userId})`)
    yield* run(() => tx`INSERT INTO memberships (workspace_id, user_id, role) VALUES (${workspaceId}, ${userId}, ${role})`)
    const { key } = yield* run(() => insertKey(tx, { workspaceId, userId, name: "CLI key", role, scope: "all", createdBy: null }))
    return key
  })

/**
 * A workspace with its admin, that admin's key, and its subdomain `{slug}.{shortDomain}`:
 * verified and primary from the start, announced to the engines through the outbox. On `tx`,
 * the caller's transaction.
 */
export const createWorkspaceOn = (tx: TransactionSql, input: { readonly name: string; readonly plan: Plan; readonly shortDomain: string }) =>
  Effect.gen(function*() {
    const base = slugifyName(input.name) || "workspace"
    let slug = base
    // Names repeat; slugs (and so subdomains) may not.
    for (let attempt = 0; ; attempt++) {
      const candidate = slug
      const taken = yield* run(() => tx`SELECT 1 FROM workspaces WHERE slug = ${candidate}
                                        UNION ALL SELECT 1 FROM domains WHERE host = ${`${candidate}.${input.shortDomain}`}`)
      if (taken.length === 0) break
      slug = `${base}-${attempt < 3 ? attempt + 2 : randomBase62(6).toLowerCase()}`
    }
    const id = newId("ws")
    yield* run(() => tx`INSERT INTO workspaces (id, name, slug, plan) VALUES (${id}, ${input.name}, ${slug}, ${input.plan})`)
    const host = `${slug}.${input.shortDomain}`
    const [domain] = yield* run(() => tx<DomainRow[]>`
      INSERT INTO domains (id, workspace_id, host, kind, status, is_primary, verified_at, verification_token)
      VALUES (${newId("dom")}, ${id}, ${host}, 'subdomain', 'verified', true, now(), ${randomBase62(32)})
      RETURNING id, workspace_id, host, status, root_redirect_url, not_found_url, expired_url`)
    yield* writeEvents(tx, [{ type: "domain.upserted", domain: toDomainRecord(domain!) }])
    const apiKey = yield* insertUserWithKey(tx, id, "admin")
    return { workspace: { id, name: input.name, slug, plan: input.plan }, domain: host, apiKey } satisfies ProvisionedWorkspace
  })

/** createWorkspaceOn in a transaction of its own. */
export const createWorkspace = (input: { readonly name: string; readonly plan: Plan; readonly shortDomain: string }) =>
  transaction((tx) => createWorkspaceOn(tx, input))

export interface FirstStart extends ProvisionedWorkspace {
  readonly admin: { readonly email: string; readonly password: string }
}

/**
 * On a database with no workspace yet, creates the first one (pro, with its admin key) and the
 * admin person who signs in with `adminEmail` and a generated password. Under a lock, so control
 * processes starting together on an empty database create exactly one.
 */
export const ensureFirstWorkspace = (shortDomain: string, adminEmail: string) =>
  transaction((tx) =>
    Effect.gen(function*() {
      yield* run(() => tx`SELECT pg_advisory_xact_lock(7342002)`)
      const [any] = yield* run(() => tx`SELECT 1 FROM workspaces LIMIT 1`)
      if (any !== undefined) return undefined
      const created = yield* createWorkspaceOn(tx, { name: "My workspace", plan: "pro", shortDomain })
      const admin = yield* createUserOn(tx, { email: adminEmail, workspaceId: created.workspace.id, role: "admin" })
      // The printed key is the admin's own (it acts as them and lists as theirs); the user made for it goes.
      const [key] = yield* run(() => tx<{ user_id: string }[]>`SELECT user_id FROM api_keys WHERE workspace_id = ${created.workspace.id}`)
      yield* run(() => tx`UPDATE api_keys SET user_id = ${admin.user.id}, created_by = ${admin.user.id}, name = 'First key'
                          WHERE workspace_id = ${created.workspace.id}`)
      if (key !== undefined && key.user_id !== admin.user.id) yield* run(() => tx`DELETE FROM users WHERE id = ${key.user_id}`)
      // A first start's admin is always a new account: its password was generated.
      return { ...created, admin: { email: admin.user.email, password: admin.password ?? "" } } satisfies FirstStart
    })
  )

/** A new user of the workspace with the given role, and a key acting as that user. */
export const createKey = (input: { readonly workspaceId: string; readonly role: string }) =>
  Effect.gen(function*() {
    const role = yield* checkRole(input.role)
    return yield* transaction((tx) =>
      Effect.gen(function*() {
        yield* requireWorkspace(tx, input.workspaceId)
        const apiKey = yield* insertUserWithKey(tx, input.workspaceId, role)
        return { apiKey, role }
      })
    )
  })
