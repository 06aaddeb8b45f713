import type { Session } from "../../../control/sessions/schema.ts"
import { failed, failureFromBody, type Outcome } from "./failure.ts"

/**
 * The two calls of the sign-in page, over plain fetch: the typed client (Effect and the whole
 * declaration, most of the dashboard's JavaScript) loads only once someone is signed in, so the
 * first page is light. Typed by the declaration's Session; any answer that is not one is a failure.
 */
const request = async (path: string, init: RequestInit): Promise<Outcome<Session>> => {
  const response = await fetch(path, { credentials: "same-origin", ...init }).catch(() => undefined)
  if (response === undefined) return { ok: false, failure: failed(0, "network", "The server could not be reached") }
  const body: unknown = await response.json().catch(() => undefined)
  if (!response.ok) return { ok: false, failure: failureFromBody(response.status, body) }
  const session = body as Partial<Session> | undefined
  if (typeof session?.user?.email !== "string" || typeof session.workspace?.id !== "string" || !Array.isArray(session.workspaces)) {
    return { ok: false, failure: failed(response.status, "unexpected", "The server's answer was not a session") }
  }
  return { ok: true, value: session as Session }
}

/** Who is signed in (401 when nobody is: not reported as a session that ended). */
export const currentSession = () => request("/v1/sessions/current", { headers: { accept: "application/json" } })

/** POST /v1/sessions: the cookie is set by the answer. */
export const signIn = (payload: { readonly email: string; readonly password: string }) =>
  request("/v1/sessions", {
    method: "POST",
    headers: { accept: "application/json", "content-type": "application/json" },
    body: JSON.stringify(payload)
  })
