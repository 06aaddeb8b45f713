import { useId, useState } from "react"
import type { Invitation, Member } from "../../../control/members/schema.ts"
import { call } from "../api/client.ts"
import type { ApiFailure, Outcome } from "../api/failure.ts"
import { useApi, useAsync } from "../api/useApi.ts"
import { useSignedIn } from "../session/SessionContext.tsx"
import { CopyButton, ErrorNote, Field, formatDate, RoleField, Skeleton } from "../ui/controls.tsx"

type Role = Member["role"]

/** The one-time link an invitation's token makes: in the fragment, so no request, log or Referer carries it. */
const inviteLink = (token: string) => `${window.location.origin}/invite#${token}`

/** An invitation just made: its link, shown this once. */
const NewInvitation = ({ invitation, onDone }: { invitation: Invitation & { token: string }; onDone: () => void }) => (
  <div className="panel new-key" role="status">
    <p><strong>Send this link to {invitation.email}: it is shown only once, and works once, for 7 days.</strong></p>
    <code data-testid="invite-link">{inviteLink(invitation.token)}</code> <CopyButton text={inviteLink(invitation.token)} label="Copy link" />
    <button type="button" className="small" onClick={onDone}>Done</button>
  </div>
)

/** The workspace's people: roles, removal, invitations. Admins change them; members see who is there. */
export const MembersPanel = () => {
  const { session } = useSignedIn()
  const admin = session.role === "admin"
  const members = useApi((c) => c.members.list(), [session.workspace.id])
  // Only admins see invitations; a member asks nothing.
  const invitations = useAsync(
    (signal): Promise<Outcome<{ readonly data: ReadonlyArray<Invitation> }>> =>
      admin ? call((c) => c.members.invitations(), { signal }) : Promise.resolve({ ok: true, value: { data: [] } }),
    [session.workspace.id, admin]
  )
  const [email, setEmail] = useState("")
  const [role, setRole] = useState<Role>("member")
  const [created, setCreated] = useState<Invitation & { token: string }>()
  const [failure, setFailure] = useState<ApiFailure>()
  const [rowFailure, setRowFailure] = useState<ApiFailure>()
  const titleId = useId()
  const pending = invitations.data?.data ?? []
  return (
    <section className="panel" aria-labelledby={titleId}>
      <h2 id={titleId}>Members of {session.workspace.name}</h2>
      <ErrorNote failure={members.failure} retry={members.reload} />
      <ErrorNote failure={rowFailure} />
      {members.data === undefined && members.loading && <Skeleton label="Loading members…" lines={3} />}
      {members.data && (
        <ul className="member-list">
          {members.data.data.map((m) => (
            <li key={m.userId}>
              <span className="member-email">{m.email}{m.userId === session.user.id && " (you)"}</span>
              {admin
                ? (
                  <>
                    <label className="visually-hidden" htmlFor={`role-${m.userId}`}>Role of {m.email}</label>
                    <select id={`role-${m.userId}`} value={m.role} onChange={async (e) => {
                      // Read now: the controlled select shows the old role again until the list is reloaded.
                      const role = e.target.value as Role
                      const o = await call((c) => c.members.setRole({ params: { id: m.userId }, payload: { role } }))
                      setRowFailure(o.ok ? undefined : o.failure)
                      members.reload()
                    }}>
                      <option value="admin">admin</option>
                      <option value="member">member</option>
                    </select>
                    {m.userId !== session.user.id && (
                      <button type="button" className="small danger" aria-label={`Remove ${m.email}`} onClick={async () => {
                        if (!window.confirm(`Remove ${m.email} from ${session.workspace.name}? Their sessions here end and their keys here stop working.`)) return
                        const o = await call((c) => c.members.remove({ params: { id: m.userId } }))
                        setRowFailure(o.ok ? undefined : o.failure)
                        members.reload()
                      }}>Remove</button>
                    )}
                  </>
                )
                : <span className="badge">{m.role}</span>}
            </li>
          ))}
        </ul>
      )}
      {admin && (
        <>
          <form className="inline" onSubmit={async (e) => {
            e.preventDefault()
            const o = await call((c) => c.members.invite({ payload: { email: email.trim(), role } }))
            if (!o.ok) return setFailure(o.failure)
            setFailure(undefined)
            setCreated(o.value)
            setEmail("")
            invitations.reload()
          }}>
            <Field label="Invite by email" field="email" failure={failure}>
              {(p) => <input {...p} type="email" value={email} onChange={(e) => setEmail(e.target.value)} placeholder="ada@example.com" />}
            </Field>
            <RoleField label="Their role" value={role} onChange={setRole} failure={failure} />
            <button type="submit">Create invitation link</button>
            <ErrorNote failure={failure} fields={["email", "role"]} />
          </form>
          {created && <NewInvitation invitation={created} onDone={() => setCreated(undefined)} />}
          {pending.length > 0 && (
            <>
              <h3>Invitations waiting</h3>
              <ul className="member-list">
                {pending.map((i) => (
                  <li key={i.id}>
                    <span className="member-email">{i.email}</span> <span className="badge">{i.role}</span>
                    <span className="hint">until {formatDate(i.expiresAt)}</span>
                    <button type="button" className="small danger" aria-label={`Revoke the invitation of ${i.email}`} onClick={async () => {
                      const o = await call((c) => c.members.revokeInvitation({ params: { id: i.id } }))
                      setRowFailure(o.ok ? undefined : o.failure)
                      invitations.reload()
                    }}>Revoke</button>
                  </li>
                ))}
              </ul>
            </>
          )}
        </>
      )}
    </section>
  )
}
