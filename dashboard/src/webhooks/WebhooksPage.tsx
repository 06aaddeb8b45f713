import { useEffect, useState } from "react"
import type { ApiFailure } from "../api/failure.ts"
import { useApi } from "../api/useApi.ts"
import { type Delivery, type Webhook, webhooks } from "../api/workspaceCalls.ts"
import { CopyButton, EmptyState, ErrorNote, Field, formatDate, Skeleton } from "../ui/controls.tsx"
import { usePageTitle } from "../ui/usePageTitle.ts"

type EventType = Webhook["events"][number]

/** How often an open list of deliveries is asked again (while the tab is visible). */
const DELIVERIES_REFRESH_MS = 5_000

const EVENTS: ReadonlyArray<EventType> = ["link.created", "link.updated", "link.deleted", "link.clicked", "domain.verified", "domain.failed"]

/** A webhook's deliveries, asked again every few seconds while shown, so new ones and retries appear. */
const Deliveries = ({ webhook }: { webhook: Webhook }) => {
  const list = useApi((c) => c.webhooks.deliveries({ params: { id: webhook.id }, query: {} }), [webhook.id])
  const { reload, loading } = list
  useEffect(() => {
    if (loading) return
    const timer = setTimeout(() => {
      if (document.visibilityState === "visible") reload()
    }, DELIVERIES_REFRESH_MS)
    return () => clearTimeout(timer)
  }, [loading, reload])
  if (list.failure) return <ErrorNote failure={list.failure} retry={list.reload} />
  const rows: ReadonlyArray<Delivery> | undefined = list.data?.data
  if (rows === undefined) return <Skeleton label="Loading deliveries…" lines={2} />
  if (rows.length === 0) return <p>No deliveries yet: they appear here as events happen.</p>
  return (
    <div className="table-wrap">
      <table>
        <caption>Deliveries to {webhook.url}</caption>
        <thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Response</th><th scope="col">Attempts</th><th scope="col">Created</th><th scope="col">Next attempt</th></tr></thead>
        <tbody>
          {rows.map((d) => (
            <tr key={d.id}>
              <td>{d.event}</td>
              <td>{d.status}{d.error === null ? "" : `: ${d.error}`}</td>
              <td>{d.responseStatus ?? "—"}</td>
              <td>{d.attempts}</td>
              <td>{formatDate(d.createdAt)}</td>
              <td>{formatDate(d.nextAttemptAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

/** Webhooks: create (secret shown once), deliveries, re-enable a disabled one, delete. */
export const WebhooksPage = () => {
  usePageTitle("Webhooks")
  const list = useApi((c) => c.webhooks.list(), [])
  const [url, setUrl] = useState("")
  const [events, setEvents] = useState<ReadonlyArray<EventType>>(["link.created", "link.updated", "link.deleted"])
  const [created, setCreated] = useState<Webhook & { readonly secret: string }>()
  const [open, setOpen] = useState<string>()
  const [failure, setFailure] = useState<ApiFailure>()
  const [rowFailure, setRowFailure] = useState<ApiFailure>()
  const load = list.reload
  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhooks</h1>
      <form className="panel" onSubmit={async (e) => {
        e.preventDefault()
        const o = await webhooks.create({ url: url.trim(), events })
        if (!o.ok) return setFailure(o.failure)
        setFailure(undefined)
        setCreated(o.value)
        setUrl("")
        load()
      }}>
        <Field label="Endpoint URL" field="url" failure={failure} hint="https; deliveries are signed (Standard Webhooks)">
          {(p) => <input {...p} type="url" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://example.com/hooks/ricochet" />}
        </Field>
        <fieldset>
          <legend>Events</legend>
          {EVENTS.map((event) => (
            <label key={event} className="check">
              <input type="checkbox" checked={events.includes(event)} onChange={(e) => setEvents(e.target.checked ? [...events, event] : events.filter((x) => x !== event))} />
              {event}
            </label>
          ))}
        </fieldset>
        <button type="submit">Create webhook</button>
        <ErrorNote failure={failure} fields={["url", "events"]} />
      </form>
      {created?.secret && (
        <div className="panel new-key" role="status">
          <p><strong>Copy the signing secret now: it is shown only once.</strong></p>
          <code>{created.secret}</code> <CopyButton text={created.secret} label="Copy secret" />
          <button type="button" className="small" onClick={() => setCreated(undefined)}>Done</button>
        </div>
      )}
      <ErrorNote failure={list.failure} retry={list.reload} />
      <ErrorNote failure={rowFailure} />
      {list.data === undefined && list.loading && <Skeleton label="Loading webhooks…" lines={3} />}
      {list.data?.data.length === 0 && (
        <EmptyState title="No webhooks yet.">
          <p>A webhook tells another service when links change or are clicked. Give its URL above and create it.</p>
        </EmptyState>
      )}
      {(list.data?.data ?? []).map((w) => (
        <article key={w.id} className="panel" aria-label={`Webhook ${w.url}`}>
          <header>
            <h2>{w.url}</h2>
            <span className={`status ${w.enabled ? "verified" : "failed"}`}>{w.enabled ? "enabled" : "disabled"}</span>
          </header>
          {!w.enabled && w.disabledReason && <p>{w.disabledReason}</p>}
          <p>{w.events.join(", ")}</p>
          <div className="actions">
            {!w.enabled && (
              <button type="button" onClick={async () => {
                const o = await webhooks.update(w.id, { enabled: true })
                if (o.ok) load()
                else setRowFailure(o.failure)
              }}>Re-enable</button>
            )}
            <button type="button" aria-expanded={open === w.id} onClick={() => setOpen(open === w.id ? undefined : w.id)}>Deliveries</button>
            <button type="button" className="danger" onClick={async () => {
              if (!window.confirm(`Delete the webhook to ${w.url}?`)) return
              const o = await webhooks.delete(w.id)
              if (o.ok) load()
              else setRowFailure(o.failure)
            }}>Delete</button>
          </div>
          {open === w.id && <Deliveries webhook={w} />}
        </article>
      ))}
    </section>
  )
}
