import { useId } from "react"
import { Link } from "../ui/router.tsx"
import { useSignedIn } from "./SessionContext.tsx"

/** The person (a link to their account), the workspace and the switch to another, role and plan, sign out. */
export const WorkspaceMenu = ({ path }: { path: string }) => {
  const { session, viaKey, signOut, switchWorkspace } = useSignedIn()
  const id = useId()
  return (
    <div className="workspace-menu">
      {session.user.email && (
        <Link to="/account" className="who" aria-current={path === "/account" ? "page" : undefined} title="Your account and the workspace's members">
          {session.user.email}
        </Link>
      )}
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
