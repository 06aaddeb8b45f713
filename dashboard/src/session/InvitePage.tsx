import { useEffect, useState } from "react"
import { call } from "../api/client.ts"
import type { ApiFailure } from "../api/failure.ts"
import { useAsync } from "../api/useApi.ts"
import type { Session } from "../api/workspaceCalls.ts"
import { ErrorNote, Field, Skeleton } from "../ui/controls.tsx"

/**
 * An invitation link (/invite#token): who it is for and to which workspace, then the password of
 * that email's account, or a new one for an account made now; accepting signs in.
 */
export const InvitePage = ({ onSession }: { onSession: (session: Session) => void }) => {
  const token = window.location.hash.slice(1)
  const preview = useAsync((signal) => call((c) => c.invitationAccept.preview({ payload: { token } }), { signal, quiet: true }), [token])
  const [password, setPassword] = useState("")
  const [failure, setFailure] = useState<ApiFailure>()
  const [busy, setBusy] = useState(false)
  useEffect(() => {
    document.title = "Invitation · Ricochet"
  }, [])
  const invitation = preview.data
  return (
    <main className="sign-in">
      <h1>Join a workspace</h1>
      {token === "" && <p>This link has no invitation in it: ask for a new one.</p>}
      <ErrorNote failure={preview.failure} />
      {token !== "" && invitation === undefined && preview.loading && <Skeleton label="Reading the invitation…" lines={2} />}
      {invitation && (
        <>
          <p>You are invited to <strong>{invitation.workspace.name}</strong> as {invitation.role}, as <strong>{invitation.email}</strong>.</p>
          <form aria-labelledby="accept-title" onSubmit={async (e) => {
            e.preventDefault()
            setBusy(true)
            const o = await call((c) => c.invitationAccept.accept({ payload: { token, password } }), { quiet: true })
            setBusy(false)
            if (!o.ok) return setFailure(o.failure)
            window.history.replaceState(null, "", "/links")
            onSession(o.value)
          }}>
            <h2 id="accept-title">{invitation.accountExists ? "Sign in to accept" : "Choose your password"}</h2>
            <Field
              label={invitation.accountExists ? "Your password" : "New password"}
              field="password"
              failure={failure}
              hint={invitation.accountExists ? `The password of ${invitation.email}'s account.` : "8 to 200 characters."}
            >
              {(p) => <input {...p} type="password" autoComplete={invitation.accountExists ? "current-password" : "new-password"} required value={password} onChange={(e) => setPassword(e.target.value)} />}
            </Field>
            <ErrorNote failure={failure} fields={["password"]} />
            <button type="submit" disabled={busy}>Accept and sign in</button>
          </form>
        </>
      )}
    </main>
  )
}
