import { currentApiKey } from "./credentials.ts"
import { failed, failureFromBody, type Outcome, reportFailure } from "./failure.ts"

/**
 * Calls of endpoints that other branches are adding to the declaration right now (sessions, keys,
 * webhooks, bulk, import/export, QR codes; /work/notes/contracts.md). Written to that contract
 * over fetch; once their groups are in control/api/Api.ts each of these becomes a typed-client
 * call (`call((c) => c.sessions.current())`, …) and this file goes away.
 */
const request = async (method: string, path: string, body?: BodyInit | object, accept = "application/json"): Promise<Response | undefined> => {
  const headers: Record<string, string> = { accept }
  const key = currentApiKey()
  if (key !== undefined) headers.authorization = `Bearer ${key}`
  let payload: BodyInit | undefined
  if (body instanceof FormData || typeof body === "string" || body instanceof Blob) payload = body
  else if (body !== undefined) {
    payload = JSON.stringify(body)
    headers["content-type"] = "application/json"
  }
  try {
    return await fetch(path, { method, headers, body: payload, credentials: "same-origin" })
  } catch {
    return undefined
  }
}

/** `quiet`: a 401 is an answer here (is anyone signed in?), not the end of a session. */
export const pendingJson = async <A>(method: string, path: string, body?: BodyInit | object, quiet = false): Promise<Outcome<A>> => {
  const response = await request(method, path, body)
  if (response === undefined) return { ok: false, failure: failed(0, "network", "The server could not be reached") }
  const text = await response.text()
  let json: unknown = undefined
  try {
    json = text === "" ? undefined : JSON.parse(text)
  } catch {
    json = undefined
  }
  if (!response.ok) {
    const failure = failureFromBody(response.status, json)
    return { ok: false, failure: quiet ? failure : reportFailure(failure) }
  }
  return { ok: true, value: json as A }
}

/** A file answer (CSV export, QR code) as a Blob, for a download link. */
export const pendingBlob = async (path: string, accept: string): Promise<Outcome<Blob>> => {
  const response = await request("GET", path, undefined, accept)
  if (response === undefined) return { ok: false, failure: failed(0, "network", "The server could not be reached") }
  if (!response.ok) {
    const json = await response.json().catch(() => undefined)
    return { ok: false, failure: reportFailure(failureFromBody(response.status, json)) }
  }
  return { ok: true, value: await response.blob() }
}

// --- Sessions ---------------------------------------------------------------------------------
export type Role = "admin" | "member"
export type Plan = "free" | "basic" | "pro" | "business"
export interface WorkspaceRef {
  readonly id: string
  readonly name: string
  readonly plan: Plan
}
export interface Session {
  readonly user: { readonly id: string; readonly email: string }
  readonly workspace: WorkspaceRef
  readonly role: Role
  readonly workspaces: ReadonlyArray<WorkspaceRef & { readonly role: Role }>
}

export const sessions = {
  create: (payload: { email: string; password: string; workspaceId?: string }) => pendingJson<Session>("POST", "/v1/sessions", payload, true),
  current: () => pendingJson<Session>("GET", "/v1/sessions/current", undefined, true),
  switchWorkspace: (workspaceId: string) => pendingJson<Session>("PATCH", "/v1/sessions/current", { workspaceId }),
  delete: () => pendingJson<{ signedOut: true }>("DELETE", "/v1/sessions/current")
}

// --- Keys -------------------------------------------------------------------------------------
export interface ApiKey {
  readonly id: string
  readonly name: string
  readonly prefix: string
  readonly role: Role
  readonly scope: "all" | "read"
  readonly createdBy: string | null
  readonly createdAt: string
  readonly lastUsedAt: string | null
}
export const keys = {
  list: () => pendingJson<{ data: ReadonlyArray<ApiKey> }>("GET", "/v1/keys"),
  create: (payload: { name: string; role: Role; scope: "all" | "read" }) => pendingJson<ApiKey & { key: string }>("POST", "/v1/keys", payload),
  revoke: (id: string) => pendingJson<{ id: string }>("DELETE", `/v1/keys/${encodeURIComponent(id)}`)
}

// --- Webhooks ---------------------------------------------------------------------------------
export interface Webhook {
  readonly id: string
  readonly url: string
  readonly events?: ReadonlyArray<string>
  readonly enabled: boolean
  readonly secret?: string
  readonly disabledReason?: string | null
  readonly createdAt?: string
}
export interface Delivery {
  readonly id: string
  readonly event?: string
  readonly status?: number | string | null
  readonly attempts?: number
  readonly createdAt?: string
  readonly deliveredAt?: string | null
  readonly error?: string | null
  readonly [field: string]: unknown
}
export const webhooks = {
  list: () => pendingJson<{ data: ReadonlyArray<Webhook> }>("GET", "/v1/webhooks"),
  create: (payload: { url: string; events?: ReadonlyArray<string> }) => pendingJson<Webhook>("POST", "/v1/webhooks", payload),
  update: (id: string, payload: { enabled?: boolean; url?: string }) => pendingJson<Webhook>("PATCH", `/v1/webhooks/${encodeURIComponent(id)}`, payload),
  delete: (id: string) => pendingJson<{ id: string }>("DELETE", `/v1/webhooks/${encodeURIComponent(id)}`),
  deliveries: (id: string) => pendingJson<{ data: ReadonlyArray<Delivery> }>("GET", `/v1/webhooks/${encodeURIComponent(id)}/deliveries`)
}

// --- Bulk, import, export, QR -------------------------------------------------------------------
export interface ImportJob {
  readonly id: string
  readonly status: string
  readonly totalRows: number
  readonly rowsDone: number
  readonly created: number
  readonly skipped: number
  readonly failed: number
  readonly failures: ReadonlyArray<{ readonly row: number; readonly error: { readonly code: string; readonly message: string } }>
}
export const bulk = {
  update: (ids: ReadonlyArray<string>, changes: { folderId?: string | null; tagIds?: ReadonlyArray<string> }) =>
    pendingJson<unknown>("PATCH", "/v1/links/bulk", { ids, ...changes }),
  delete: (ids: ReadonlyArray<string>) => pendingJson<unknown>("DELETE", "/v1/links/bulk", { ids }),
  importCsv: (file: File) => {
    const form = new FormData()
    form.append("file", file)
    return pendingJson<ImportJob>("POST", "/v1/links/import", form)
  },
  importStatus: (id: string) => pendingJson<ImportJob>("GET", `/v1/links/import/${encodeURIComponent(id)}`),
  exportCsv: () => pendingBlob("/v1/links/export", "text/csv"),
  qr: (linkId: string, format: "svg" | "png", size: number) =>
    pendingBlob(`/v1/links/${encodeURIComponent(linkId)}/qr?format=${format}&size=${size}`, format === "svg" ? "image/svg+xml" : "image/png")
}
