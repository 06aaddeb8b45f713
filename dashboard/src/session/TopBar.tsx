import { useState } from "react"
import { Link } from "../ui/router.tsx"
import { WorkspaceMenu } from "./WorkspaceMenu.tsx"

const NAV: ReadonlyArray<[string, string]> = [
  ["/links", "Links"],
  ["/analytics", "Analytics"],
  ["/tags", "Tags"],
  ["/folders", "Folders"],
  ["/domains", "Domains"],
  ["/keys", "API keys"],
  ["/webhooks", "Webhooks"]
]

/** The brand, the sections and the workspace; on a phone the sections fold behind a Menu button. */
export const TopBar = ({ path }: { path: string }) => {
  const [open, setOpen] = useState(false)
  return (
    <header className={open ? "top open" : "top"}>
      <Link to="/links" className="brand">Ricochet</Link>
      <button type="button" className="menu-button small" aria-expanded={open} aria-controls="sections" onClick={() => setOpen((o) => !o)}>
        Menu
      </button>
      <nav aria-label="Sections" id="sections">
        <ul>
          {NAV.map(([to, label]) => (
            <li key={to}>
              <Link to={to} onClick={() => setOpen(false)} aria-current={path === to || (to === "/links" && path.startsWith("/links")) ? "page" : undefined}>{label}</Link>
            </li>
          ))}
        </ul>
      </nav>
      <WorkspaceMenu path={path} />
    </header>
  )
}
