import { lazy, type ReactNode, Suspense, useCallback, useEffect, useState } from "react"
import { call, preloadClient } from "./api/client.ts"
import { useApiKey } from "./api/credentials.ts"
import { type ApiFailure, onUnauthorized } from "./api/failure.ts"
import { type Session, sessions } from "./api/workspaceCalls.ts"
import { ChoosePassword } from "./session/ChoosePassword.tsx"
import { SessionContext, type SignedIn } from "./session/SessionContext.tsx"
import { SignIn } from "./session/SignIn.tsx"
import { WorkspaceMenu } from "./session/WorkspaceMenu.tsx"
import { Link, navigate, useLocation } from "./ui/router.tsx"

// Each section is a chunk loaded on first visit; they share the typed client's chunk.
const AnalyticsPage = lazy(() => import("./analytics/AnalyticsPage.tsx").then((m) => ({ default: m.AnalyticsPage })))
const DomainsPage = lazy(() => import("./domains/DomainsPage.tsx").then((m) => ({ default: m.DomainsPage })))
const FoldersPage = lazy(() => import("./folders/FoldersPage.tsx").then((m) => ({ default: m.FoldersPage })))
const KeysPage = lazy(() => import("./keys/KeysPage.tsx").then((m) => ({ default: m.KeysPage })))
const LinkEditor = lazy(() => import("./links/LinkEditor.tsx").then((m) => ({ default: m.LinkEditor })))
const LinksPage = lazy(() => import("./links/LinksPage.tsx").then((m) => ({ default: m.LinksPage })))
const TagsPage = lazy(() => import("./tags/TagsPage.tsx").then((m) => ({ default: m.TagsPage })))
const WebhooksPage = lazy(() => import("./webhooks/WebhooksPage.tsx").then((m) => ({ default: m.WebhooksPage })))

const NAV: ReadonlyArray<[string, string]> = [
  ["/links", "Links"],
  ["/analytics", "Analytics"],
  ["/tags", "Tags"],
  ["/folders", "Folders"],
  ["/domains", "Domains"],
  ["/keys", "API keys"],
  ["/webhooks", "Webhooks"]
]

/**
 * A key signs in to its own workspace; the API is a Pro feature, so a key that works means at
 * least Pro. Its role shows when an admin-only call is refused.
 */
const keySession = (): Session => ({
  user: { id: "", email: "" },
  workspace: { id: "", name: "Workspace of this API key", plan: "pro" },
  role: "admin",
  workspaces: [],
  mustChangePassword: false
})

const page = (path: string): ReactNode => {
  if (path === "/links/new") return <LinkEditor id={undefined} />
  const edit = /^\/links\/([^/]+)$/.exec(path)
  if (edit) return <LinkEditor id={decodeURIComponent(edit[1])} />
  switch (path) {
    case "/analytics": return <AnalyticsPage />
    case "/tags": return <TagsPage />
    case "/folders": return <FoldersPage />
    case "/domains": return <DomainsPage />
    case "/keys": return <KeysPage />
    case "/webhooks": return <WebhooksPage />
    default: return <LinksPage />
  }
}

export const App = () => {
  const location = useLocation()
  const [signedIn, setSignedIn] = useState<{ session: Session; viaKey: boolean } | null>()
  // Kept only while a one-time password waits to be replaced, to spare typing it twice.
  const [oneTimePassword, setOneTimePassword] = useState<string>()

  useEffect(() => {
    sessions.current().then((outcome) => setSignedIn(outcome.ok ? { session: outcome.value, viaKey: false } : null))
  }, [])

  // Once the first page has shown, the typed client's chunk loads (its evaluation would delay that page).
  useEffect(() => {
    if (signedIn !== undefined) setTimeout(preloadClient, 0)
  }, [signedIn === undefined])

  useEffect(() => onUnauthorized(() => {
    useApiKey(undefined)
    setSignedIn((current) => (current ? null : current))
  }), [])

  const signOut = useCallback(async () => {
    if (signedIn?.viaKey) useApiKey(undefined)
    else await sessions.delete()
    setOneTimePassword(undefined)
    setSignedIn(null)
    navigate("/")
  }, [signedIn])

  const signInWithKey = async (key: string): Promise<ApiFailure | undefined> => {
    useApiKey(key)
    // Any read proves the key; the session endpoint says more once it accepts keys.
    const check = await call((c) => c.tags.list())
    if (!check.ok) {
      useApiKey(undefined)
      return check.failure
    }
    const current = await sessions.current()
    setSignedIn({ session: current.ok ? current.value : keySession(), viaKey: true })
    return undefined
  }

  if (signedIn === undefined) return <p className="loading" role="status">Loading…</p>
  if (signedIn === null) {
    return (
      <SignIn
        onSession={(session, password) => {
          setOneTimePassword(session.mustChangePassword ? password : undefined)
          setSignedIn({ session, viaKey: false })
        }}
        onKey={signInWithKey}
      />
    )
  }
  if (signedIn.session.mustChangePassword) {
    return (
      <ChoosePassword
        session={signedIn.session}
        oneTimePassword={oneTimePassword}
        onChanged={(session) => {
          setOneTimePassword(undefined)
          setSignedIn({ session, viaKey: false })
        }}
        onSignOut={signOut}
      />
    )
  }

  const context: SignedIn = {
    ...signedIn,
    signOut,
    switchWorkspace: async (workspaceId) => {
      const outcome = await sessions.switchWorkspace(workspaceId)
      if (outcome.ok) setSignedIn({ session: outcome.value, viaKey: false })
    }
  }
  const path = location.pathname === "/" ? "/links" : location.pathname
  return (
    <SessionContext.Provider value={context}>
      <a className="skip" href="#main">Skip to content</a>
      <header className="top">
        <Link to="/links" className="brand">Ricochet</Link>
        <nav aria-label="Sections">
          <ul>
            {NAV.map(([to, label]) => (
              <li key={to}>
                <Link to={to} aria-current={path === to || (to === "/links" && path.startsWith("/links")) ? "page" : undefined}>{label}</Link>
              </li>
            ))}
          </ul>
        </nav>
        <WorkspaceMenu />
      </header>
      <main id="main" tabIndex={-1} key={path}>
        <Suspense fallback={<p role="status">Loading…</p>}>{page(path)}</Suspense>
      </main>
    </SessionContext.Provider>
  )
}
