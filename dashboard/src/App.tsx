import { lazy, type ReactNode, Suspense, useCallback, useEffect, useState } from "react"
import { call, preloadClient } from "./api/client.ts"
import { useApiKey } from "./api/credentials.ts"
import { type ApiFailure, onUnauthorized } from "./api/failure.ts"
import { currentSession } from "./api/sessionCalls.ts"
import { type Session, sessions } from "./api/workspaceCalls.ts"
import { ChoosePassword } from "./session/ChoosePassword.tsx"
import { SessionContext, type SignedIn } from "./session/SessionContext.tsx"
import { SignIn } from "./session/SignIn.tsx"
import { TopBar } from "./session/TopBar.tsx"
import { Skeleton } from "./ui/controls.tsx"
import { navigate, useLocation } from "./ui/router.tsx"
import { LiveEventsProvider } from "./live/LiveEvents.tsx"
import { WorkspaceListsProvider } from "./workspace/WorkspaceLists.tsx"

// Each section is a chunk loaded on first visit; they share the typed client's chunk.
const InvitePage = lazy(() => import("./session/InvitePage.tsx").then((m) => ({ default: m.InvitePage })))
const AccountPage = lazy(() => import("./account/AccountPage.tsx").then((m) => ({ default: m.AccountPage })))
const AnalyticsPage = lazy(() => import("./analytics/AnalyticsPage.tsx").then((m) => ({ default: m.AnalyticsPage })))
const DomainsPage = lazy(() => import("./domains/DomainsPage.tsx").then((m) => ({ default: m.DomainsPage })))
const FoldersPage = lazy(() => import("./folders/FoldersPage.tsx").then((m) => ({ default: m.FoldersPage })))
const KeysPage = lazy(() => import("./keys/KeysPage.tsx").then((m) => ({ default: m.KeysPage })))
const LinkEditor = lazy(() => import("./links/editor/LinkEditor.tsx").then((m) => ({ default: m.LinkEditor })))
const LinkPage = lazy(() => import("./links/LinkPage.tsx").then((m) => ({ default: m.LinkPage })))
const LinksPage = lazy(() => import("./links/LinksPage.tsx").then((m) => ({ default: m.LinksPage })))
const TagsPage = lazy(() => import("./tags/TagsPage.tsx").then((m) => ({ default: m.TagsPage })))
const WebhooksPage = lazy(() => import("./webhooks/WebhooksPage.tsx").then((m) => ({ default: m.WebhooksPage })))

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
  const edit = /^\/links\/([^/]+)\/edit$/.exec(path)
  if (edit) return <LinkEditor id={decodeURIComponent(edit[1])} />
  const one = /^\/links\/([^/]+)$/.exec(path)
  if (one) return <LinkPage id={decodeURIComponent(one[1])} />
  switch (path) {
    case "/analytics": return <AnalyticsPage />
    case "/tags": return <TagsPage />
    case "/folders": return <FoldersPage />
    case "/domains": return <DomainsPage />
    case "/keys": return <KeysPage />
    case "/webhooks": return <WebhooksPage />
    case "/account": return <AccountPage />
    default: return <LinksPage />
  }
}

export const App = () => {
  const location = useLocation()
  const [signedIn, setSignedIn] = useState<{ session: Session; viaKey: boolean } | null>()
  // Kept only while a one-time password waits to be replaced, to spare typing it twice.
  const [oneTimePassword, setOneTimePassword] = useState<string>()

  useEffect(() => {
    currentSession().then((outcome) => setSignedIn(outcome.ok ? { session: outcome.value, viaKey: false } : null))
  }, [])

  // Signed in, the typed client's chunk loads at once (the sign-in page never needs it).
  useEffect(() => {
    if (signedIn) preloadClient()
  }, [signedIn !== null && signedIn !== undefined])

  useEffect(() => onUnauthorized(() => {
    useApiKey(undefined)
    setSignedIn((current) => (current ? null : current))
  }), [])

  useEffect(() => {
    if (signedIn === null) document.title = "Sign in · Ricochet"
  }, [signedIn])

  const signOut = useCallback(async () => {
    if (signedIn?.viaKey) useApiKey(undefined)
    else await sessions.delete()
    setOneTimePassword(undefined)
    setSignedIn(null)
    navigate("/")
  }, [signedIn])

  const signInWithKey = async (key: string): Promise<ApiFailure | undefined> => {
    useApiKey(key)
    // Any read proves the key; a key has no session to describe.
    const check = await call((c) => c.tags.list())
    if (!check.ok) {
      useApiKey(undefined)
      return check.failure
    }
    setSignedIn({ session: keySession(), viaKey: true })
    return undefined
  }

  if (signedIn === undefined) return <Skeleton label="Loading…" className="loading" />
  if (signedIn === null && location.pathname === "/invite") {
    return (
      <Suspense fallback={<Skeleton label="Loading…" className="loading" />}>
        <InvitePage onSession={(session) => setSignedIn({ session, viaKey: false })} />
      </Suspense>
    )
  }
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
    replaceSession: (session) => setSignedIn({ session, viaKey: false }),
    switchWorkspace: async (workspaceId) => {
      const outcome = await sessions.switchWorkspace(workspaceId)
      if (outcome.ok) {
        setSignedIn({ session: outcome.value, viaKey: false })
        navigate("/links")
      }
    }
  }
  const path = location.pathname === "/" ? "/links" : location.pathname.replace(/\/+$/, "") || "/links"
  return (
    <SessionContext.Provider value={context}>
      <WorkspaceListsProvider workspaceId={signedIn.session.workspace.id} key={signedIn.session.workspace.id}>
        <LiveEventsProvider workspaceId={signedIn.session.workspace.id}>
          <a className="skip" href="#main">Skip to content</a>
          <TopBar path={path} />
          <main id="main" tabIndex={-1} key={path}>
            <Suspense fallback={<Skeleton label="Loading…" lines={4} />}>{page(path)}</Suspense>
          </main>
        </LiveEventsProvider>
      </WorkspaceListsProvider>
    </SessionContext.Provider>
  )
}
