import { useEffect } from "react"
import { PasswordForm } from "../account/PasswordForm.tsx"
import type { Session } from "../api/workspaceCalls.ts"

interface Props {
  readonly session: Session
  /** The one-time password just signed in with, when this tab has it (not after a reload). */
  readonly oneTimePassword: string | undefined
  readonly onChanged: (session: Session) => void
  readonly onSignOut: () => void
}

/**
 * After a sign-in with a one-time password: the session may do nothing else until the person
 * chooses their own (POST /v1/me/password), the same form as the account page's.
 */
export const ChoosePassword = ({ session, oneTimePassword, onChanged, onSignOut }: Props) => {
  useEffect(() => {
    document.title = "Choose a new password · Ricochet"
  }, [])
  return (
    <main className="sign-in">
      <h1>Choose a new password</h1>
      <p>
        {session.user.email} signed in with a one-time password. Choose a password of your own to continue; your other
        sessions end.
      </p>
      <PasswordForm
        initialCurrent={oneTimePassword}
        currentHint={oneTimePassword === undefined ? "The one-time password you were given." : undefined}
        submitLabel="Save and continue"
        onChanged={onChanged}
      />
      <p>
        <button type="button" className="small" onClick={onSignOut}>Sign out</button>
      </p>
    </main>
  )
}
