import { createContext, useContext } from "react"
import type { Session } from "../api/workspaceCalls.ts"

/** Who is signed in, and how: a session cookie, or an API key held in memory. */
export interface SignedIn {
  readonly session: Session
  readonly viaKey: boolean
  readonly signOut: () => void
  readonly switchWorkspace: (workspaceId: string) => Promise<void>
  /** The session as an answer just described it (after a password change, say). */
  readonly replaceSession: (session: Session) => void
}

export const SessionContext = createContext<SignedIn | undefined>(undefined)

export const useSignedIn = (): SignedIn => {
  const signedIn = useContext(SessionContext)
  if (signedIn === undefined) throw new Error("useSignedIn outside a signed-in page")
  return signedIn
}
