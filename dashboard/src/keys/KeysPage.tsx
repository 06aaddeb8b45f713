import { useState } from "react"
import { atLeast, API_PLAN } from "../../../control/kernel/plans.ts"
import type { ApiFailure } from "../api/failure.ts"
import { useApi } from "../api/useApi.ts"
import { type ApiKey, keys, type Role } from "../api/workspaceCalls.ts"
import { useSignedIn } from "../session/SessionContext.tsx"
import { CopyButton, EmptyState, ErrorNote, Field, formatDate, PlanNote, RoleField, Skeleton } from "../ui/controls.tsx"
import { usePageTitle } from "../ui/usePageTitle.ts"

/** API keys: create (shown once), list with last use, revoke. Admins only. */
export const KeysPage = () => {
  usePageTitle("API keys")
  const { session } = useSignedIn()
  const list = useApi((c) => c.keys.list(), [])
  const [name, setName] = useState("")
  const [role, setRole] = useState<Role>("member")
  const [scope, setScope] = useState<"all" | "read">("all")
  const [created, setCreated] = useState<ApiKey & { key: string }>()
  const [failure, setFailure] = useState<ApiFailure>()
  const [rowFailure, setRowFailure] = useState<ApiFailure>()
  const planReason = atLeast(session.workspace.plan, API_PLAN)
    ? undefined
    : `API keys need the ${API_PLAN} plan or higher; this workspace is on ${session.workspace.plan}`
  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">API keys</h1>
      <form className="panel inline" onSubmit={async (e) => {
        e.preventDefault()
        const o = await keys.create({ name, role, scope })
        if (!o.ok) return setFailure(o.failure)
        setFailure(undefined)
        setCreated(o.value)
        setName("")
        list.reload()
      }}>
        <fieldset disabled={planReason !== undefined || session.role !== "admin"}>
          <legend>New key</legend>
          <PlanNote reason={planReason ?? (session.role !== "admin" ? "Only admins of the workspace manage keys" : undefined)} />
          <Field label="Name" field="name" failure={failure}>
            {(p) => <input {...p} value={name} onChange={(e) => setName(e.target.value)} placeholder="CI deploys" />}
          </Field>
          <RoleField label="Role" value={role} onChange={setRole} failure={failure} />
          <Field label="Scope" field="scope" failure={failure}>
            {(p) => (
              <select {...p} value={scope} onChange={(e) => setScope(e.target.value as "all" | "read")}>
                <option value="all">all (read and write)</option>
                <option value="read">read only</option>
              </select>
            )}
          </Field>
          <button type="submit">Create key</button>
        </fieldset>
        <ErrorNote failure={failure} fields={["name", "role", "scope"]} />
      </form>
      {created && (
        <div className="panel new-key" role="status">
          <p><strong>Copy the key {created.name} now: it is shown only once.</strong></p>
          <code data-testid="new-key">{created.key}</code> <CopyButton text={created.key} label="Copy key" />
          <button type="button" className="small" onClick={() => setCreated(undefined)}>Done</button>
        </div>
      )}
      <ErrorNote failure={list.failure} retry={list.reload} />
      <ErrorNote failure={rowFailure} />
      {list.data === undefined && list.loading && <Skeleton label="Loading keys…" lines={3} />}
      {list.data?.data.length === 0 && (
        <EmptyState title="No API keys yet.">
          <p>A key lets a script or another service use the API as this workspace. Name one above and create it.</p>
        </EmptyState>
      )}
      {list.data !== undefined && list.data.data.length > 0 && <div className="table-wrap">
        <table>
          <caption className="visually-hidden">Keys of this workspace</caption>
          <thead>
            <tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Role</th><th scope="col">Scope</th><th scope="col">Created by</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col"><span className="visually-hidden">Actions</span></th></tr>
          </thead>
          <tbody>
            {list.data.data.map((k: ApiKey) => (
              <tr key={k.id}>
                <td>{k.name}</td>
                <td><code>{k.prefix}…</code></td>
                <td>{k.role}</td>
                <td>{k.scope}</td>
                <td>{k.createdBy === null ? "the CLI" : k.createdBy.email ?? k.createdBy.id}</td>
                <td>{formatDate(k.createdAt)}</td>
                <td>{k.lastUsedAt ? formatDate(k.lastUsedAt) : "never"}</td>
                <td>
                  <button type="button" className="small danger" aria-label={`Revoke key ${k.name}`} onClick={async () => {
                    if (!window.confirm(`Revoke the key ${k.name}? Requests with it are refused at once.`)) return
                    const o = await keys.revoke(k.id)
                    if (o.ok) list.reload()
                    else setRowFailure(o.failure)
                  }}>Revoke</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>}
    </section>
  )
}
