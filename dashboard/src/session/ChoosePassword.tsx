import { useState } from "react"
import { type ApiFailure, failed } from "../api/failure.ts"
import { me, type Session } from "../api/workspaceCalls.ts"
import { ErrorNote, Field } from "../ui/controls.tsx"

interface Props {
  readonly session: Session
  /** The one-time password just signed in with, when this tab has it (not after a reload). */
  readonly oneTimePassword: string | undefined
  readonly onChanged: (session: Session) => void
  readonly onSignOut: () => void
}

const FIELDS = ["currentPassword", "newPassword", "repeatPassword"]

/**
 * After a sign-in with a one-time password: the session may do nothing else until the person
 * chooses their own (POST /v1/me/password). The account page comes later; this is the one step
 * that cannot wait.
 */
export const ChoosePassword = ({ session, oneTimePassword, onChanged, onSignOut }: Props) => {
  const [current, setCurrent] = useState(oneTimePassword ?? "")
  const [next, setNext] = useState("")
  const [repeat, setRepeat] = useState("")
  const [failure, setFailure] = useState<ApiFailure>()
  const [busy, setBusy] = useState(false)
  return (
    <main className="sign-in">
      <h1>Choose a new password</h1>
      <p>
        {session.user.email} signed in with a one-time password. Choose a password of your own to continue; your other
        sessions end.
      </p>
      <form
        aria-label="Choose a new password"
        onSubmit={async (event) => {
          event.preventDefault()
          if (next !== repeat) {
            const issue = { path: ["repeatPassword"], message: "Type the same new password twice", code: "mismatch" }
            return setFailure(failed(422, "unprocessable_entity", `Invalid request at repeatPassword: ${issue.message}`, [issue]))
          }
          setBusy(true)
          const outcome = await me.changePassword({ currentPassword: current, newPassword: next })
          setBusy(false)
          if (outcome.ok) onChanged(outcome.value)
          else setFailure(outcome.failure)
        }}
      >
        <Field label="Current password" field="currentPassword" failure={failure} hint={oneTimePassword === undefined ? "The one-time password you were given." : undefined}>
          {(p) => <input {...p} type="password" autoComplete="current-password" required value={current} onChange={(e) => setCurrent(e.target.value)} />}
        </Field>
        <Field label="New password" field="newPassword" failure={failure} hint="8 to 200 characters.">
          {(p) => <input {...p} type="password" autoComplete="new-password" required minLength={8} maxLength={200} value={next} onChange={(e) => setNext(e.target.value)} />}
        </Field>
        <Field label="New password again" field="repeatPassword" failure={failure}>
          {(p) => <input {...p} type="password" autoComplete="new-password" required value={repeat} onChange={(e) => setRepeat(e.target.value)} />}
        </Field>
        <ErrorNote failure={failure} fields={FIELDS} />
        <button type="submit" disabled={busy}>Save and continue</button>
      </form>
      <p>
        <button type="button" className="small" onClick={onSignOut}>Sign out</button>
      </p>
    </main>
  )
}
