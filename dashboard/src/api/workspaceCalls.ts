import type { ApiKey as ApiKeyShape, CreatedApiKey } from "../../../control/keys/schema.ts"
import type { ImportJob as ImportJobShape } from "../../../control/links/import/schema.ts"
import type { Session as SessionShape } from "../../../control/sessions/schema.ts"
import type { Webhook as WebhookShape, WebhookDelivery } from "../../../control/webhooks/schema.ts"
import { call } from "./client.ts"
import { currentApiKey } from "./credentials.ts"
import { failed, failureFromBody, type Outcome, reportFailure } from "./failure.ts"

/**
 * The dashboard's calls beyond links, tags, folders, domains and analytics: sessions (past the
 * sign-in page), the person's password, keys, webhooks, bulk changes, import, and the two downloads. Each is the typed client of the API
 * declaration, with the declaration's shapes.
 */

export type Session = SessionShape
export type Role = Session["role"]
export type ApiKey = typeof ApiKeyShape.Type
export type Webhook = WebhookShape
export type Delivery = WebhookDelivery
export type ImportJob = ImportJobShape

export const sessions = {
  current: () => call((c) => c.sessions.current(), { quiet: true }),
  switchWorkspace: (workspaceId: string) => call((c) => c.sessions.switch({ payload: { workspaceId } })),
  delete: () => call((c) => c.sessions.signOut())
}

export const me = {
  changePassword: (payload: { currentPassword: string; newPassword: string }) => call((c) => c.me.changePassword({ payload }))
}

export const keys = {
  list: () => call((c) => c.keys.list()),
  create: (payload: { name: string; role: Role; scope: "all" | "read" }): Promise<Outcome<typeof CreatedApiKey.Type>> =>
    call((c) => c.keys.create({ payload })),
  revoke: (id: string) => call((c) => c.keys.revoke({ params: { id } }))
}

export const webhooks = {
  list: () => call((c) => c.webhooks.list()),
  create: (payload: { url: string; events: ReadonlyArray<Webhook["events"][number]> }) => call((c) => c.webhooks.create({ payload })),
  update: (id: string, payload: { enabled?: boolean; url?: string }) => call((c) => c.webhooks.update({ params: { id }, payload })),
  delete: (id: string) => call((c) => c.webhooks.delete({ params: { id } })),
  deliveries: (id: string) => call((c) => c.webhooks.deliveries({ params: { id }, query: {} }))
}

/**
 * A file answer (CSV export, QR code) as a Blob for a download link. Fetched by path rather than
 * through the typed client: the declaration describes these bodies as text and bytes for the
 * document, and a download wants the browser's own Blob of the answer as sent.
 */
const download = async (path: string, accept: string): Promise<Outcome<Blob>> => {
  const headers: Record<string, string> = { accept }
  const key = currentApiKey()
  if (key !== undefined) headers.authorization = `Bearer ${key}`
  const response = await fetch(path, { headers, credentials: "same-origin" }).catch(() => undefined)
  if (response === undefined) return { ok: false, failure: failed(0, "network", "The server could not be reached") }
  if (!response.ok) {
    const json = await response.json().catch(() => undefined)
    return { ok: false, failure: reportFailure(failureFromBody(response.status, json)) }
  }
  return { ok: true, value: await response.blob() }
}

export const bulk = {
  update: (ids: ReadonlyArray<string>, changes: { folderId?: string | null; tagIds?: ReadonlyArray<string> }) =>
    call((c) => c.links.bulkUpdate({ payload: { ids, ...changes } })),
  delete: (ids: ReadonlyArray<string>) => call((c) => c.links.bulkDelete({ payload: { ids } })),
  /** Sent as a text/csv body: the declaration's other form of the upload, and no multipart to build. */
  importCsv: async (file: File) => {
    const text = await file.text()
    return call((c) => c.links.import({ payload: text }))
  },
  importStatus: (id: string) => call((c) => c.links.importStatus({ params: { id } })),
  exportCsv: () => download("/v1/links/export", "text/csv"),
  qr: (linkId: string, format: "svg" | "png", size: number) =>
    download(`/v1/links/${encodeURIComponent(linkId)}/qr?format=${format}&size=${size}`, format === "svg" ? "image/svg+xml" : "image/png")
}
