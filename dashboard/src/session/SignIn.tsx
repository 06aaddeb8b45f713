import { useState } from "react"
import type { ApiFailure } from "../api/failure.ts"
import { signIn } from "../api/sessionCalls.ts"
import type { Session } from "../api/workspaceCalls.ts"
import { ErrorNote, Field } from "../ui/controls.tsx"

interface Props {
  /** Signed in; `password` is passed on for a one-time password's replacement. */
  readonly onSession: (session: Session, password: string) => void
  readonly onKey: (key: string) => Promise<ApiFailure | undefined>
}

/** Email and password (a session cookie); or an API key, kept in this tab's memory only. */
export const SignIn = ({ onSession, onKey }: Props) => {
  const [email, setEmail] = useState("")
  const [password, setPassword] = useState("")
  const [key, setKey] = useState("")
  const [failure, setFailure] = useState<ApiFailure>()
  const [keyFailure, setKeyFailure] = useState<ApiFailure>()
  const [busy, setBusy] = useState(false)
  return (
    <main className="sign-in">
      <h1>Sign in to Ricochet</h1>
      <form
        aria-label="Sign in with email and password"
        onSubmit={async (event) => {
          event.preventDefault()
          setBusy(true)
          const outcome = await signIn({ email, password })
          setBusy(false)
          if (outcome.ok) onSession(outcome.value, password)
          else setFailure(outcome.failure)
        }}
      >
        <Field label="Email" field="email" failure={failure}>
          {(p) => <input {...p} type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />}
        </Field>
        <Field label="Password" field="password" failure={failure}>
          {(p) => <input {...p} type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />}
        </Field>
        <ErrorNote failure={failure} fields={["email", "password"]} />
        <button type="submit" disabled={busy}>Sign in</button>
      </form>
      <details>
        <summary>Use an API key instead</summary>
        <form
          aria-label="Sign in with an API key"
          onSubmit={async (event) => {
            event.preventDefault()
            setBusy(true)
            setKeyFailure(await onKey(key.trim()))
            setBusy(false)
          }}
        >
          <Field label="API key" hint="Kept in this tab's memory only: reloading the page signs you out.">
            {(p) => <input {...p} type="password" autoComplete="off" placeholder="rico_…" required value={key} onChange={(e) => setKey(e.target.value)} />}
          </Field>
          <ErrorNote failure={keyFailure} />
          <button type="submit" disabled={busy}>Sign in with the key</button>
        </form>
      </details>
    </main>
  )
}
