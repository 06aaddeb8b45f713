import { useState } from "react"
import { type ApiFailure, failed } from "../api/failure.ts"
import { me, type Session } from "../api/workspaceCalls.ts"
import { ErrorNote, Field } from "../ui/controls.tsx"

const FIELDS = ["currentPassword", "newPassword", "repeatPassword"]

/**
 * The current password and a new one typed twice (POST /v1/me/password): after a one-time
 * password, and from the account page. The person's other sessions end; this one goes on.
 */
export const PasswordForm = ({ initialCurrent = "", currentHint, submitLabel, onChanged }: {
  initialCurrent?: string
  currentHint?: string
  submitLabel: string
  onChanged: (session: Session) => void
}) => {
  const [current, setCurrent] = useState(initialCurrent)
  const [next, setNext] = useState("")
  const [repeat, setRepeat] = useState("")
  const [failure, setFailure] = useState<ApiFailure>()
  const [busy, setBusy] = useState(false)
  return (
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
        if (!outcome.ok) return setFailure(outcome.failure)
        setFailure(undefined)
        setCurrent("")
        setNext("")
        setRepeat("")
        onChanged(outcome.value)
      }}
    >
      <Field label="Current password" field="currentPassword" failure={failure} hint={currentHint}>
        {(p) => <input {...p} type="password" autoComplete="current-password" required value={current} onChange={(e) => setCurrent(e.target.value)} />}
      </Field>
      <Field label="New password" field="newPassword" failure={failure} hint="8 to 200 characters.">
        {(p) => <input {...p} type="password" autoComplete="new-password" required minLength={8} maxLength={200} value={next} onChange={(e) => setNext(e.target.value)} />}
      </Field>
      <Field label="New password again" field="repeatPassword" failure={failure}>
        {(p) => <input {...p} type="password" autoComplete="new-password" required value={repeat} onChange={(e) => setRepeat(e.target.value)} />}
      </Field>
      <ErrorNote failure={failure} fields={FIELDS} />
      <button type="submit" disabled={busy}>{submitLabel}</button>
    </form>
  )
}
