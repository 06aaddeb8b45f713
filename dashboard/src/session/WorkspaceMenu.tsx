import { useId } from "react"
import { useSignedIn } from "./SessionContext.tsx"

/** The person, their role and plan in the current workspace, the switch to another, sign out. */
export const WorkspaceMenu = () => {
  const { session, viaKey, signOut, switchWorkspace } = useSignedIn()
  const id = useId()
  return (
    <div className="workspace-menu">
      {session.user.email && <span className="who">{session.user.email}</span>}
      {session.workspaces.length > 1 ? (
        <>
          <label htmlFor={id} className="visually-hidden">Workspace</label>
          <select id={id} value={session.workspace.id} onChange={(e) => switchWorkspace(e.target.value)}>
            {session.workspaces.map((w) => <option key={w.id} value={w.id}>{w.name}</option>)}
          </select>
        </>
      ) : (
        <span className="workspace">{session.workspace.name}</span>
      )}
      <span className="badge" title="Your role in this workspace">{session.role}</span>
      <span className="badge plan" title="The workspace's plan" data-testid="plan">{session.workspace.plan}</span>
      {viaKey && <span className="badge">API key</span>}
      <button type="button" className="small" onClick={signOut}>Sign out</button>
    </div>
  )
}
