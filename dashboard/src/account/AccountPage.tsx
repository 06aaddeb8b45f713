import { useState } from "react"
import { call } from "../api/client.ts"
import type { ApiFailure } from "../api/failure.ts"
import { useSignedIn } from "../session/SessionContext.tsx"
import { ErrorNote } from "../ui/controls.tsx"
import { usePageTitle } from "../ui/usePageTitle.ts"
import { MembersPanel } from "./MembersPanel.tsx"
import { PasswordForm } from "./PasswordForm.tsx"

/** The signed-in person's account: their password, their other sessions, their workspaces, the workspace's members. */
export const AccountPage = () => {
  usePageTitle("Account")
  const { session, viaKey, replaceSession, switchWorkspace } = useSignedIn()
  const [changed, setChanged] = useState(false)
  const [ended, setEnded] = useState<number>()
  const [endFailure, setEndFailure] = useState<ApiFailure>()
  if (viaKey) {
    return (
      <section aria-labelledby="account-title">
        <h1 id="account-title">Account</h1>
        <p>Signed in with an API key: the key has no account of its own. Sign in with your email and password to manage it.</p>
      </section>
    )
  }
  return (
    <section aria-labelledby="account-title" className="account">
      <h1 id="account-title">Account</h1>
      <p>Signed in as <strong>{session.user.email}</strong>, {session.role} of {session.workspace.name}.</p>
      <div className="panel">
        <h2>Password</h2>
        <PasswordForm submitLabel="Change password" onChanged={(s) => {
          setChanged(true)
          replaceSession(s)
        }} />
        {changed && <p role="status" className="ok-note">Password changed. Your other sessions have ended.</p>}
      </div>
      <div className="panel">
        <h2>Sessions</h2>
        <p>Signed in somewhere else, or on a computer you no longer use? End every session but this one.</p>
        <button type="button" onClick={async () => {
          const o = await call((c) => c.members.endOtherSessions())
          if (!o.ok) return setEndFailure(o.failure)
          setEndFailure(undefined)
          setEnded(o.value.signedOut)
        }}>Sign out other sessions</button>
        <ErrorNote failure={endFailure} />
        {ended !== undefined && <p role="status" className="ok-note">{ended === 1 ? "1 other session ended." : `${ended} other sessions ended.`}</p>}
      </div>
      <MembersPanel />
      {session.workspaces.length > 1 && (
        <div className="panel">
          <h2>Your workspaces</h2>
          <ul className="workspace-list">
            {session.workspaces.map((w) => (
              <li key={w.id}>
                <strong>{w.name}</strong> <span className="badge">{w.role}</span> <span className="badge">{w.plan}</span>{" "}
                {w.id === session.workspace.id
                  ? <span className="hint">current</span>
                  : <button type="button" className="small" onClick={() => switchWorkspace(w.id)}>Switch to {w.name}</button>}
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  )
}
