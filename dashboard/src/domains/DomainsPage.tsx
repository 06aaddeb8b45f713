import { useState } from "react"
import type { Domain } from "../../../control/domains/schema.ts"
import { call } from "../api/client.ts"
import type { ApiFailure } from "../api/failure.ts"
import { useApi } from "../api/useApi.ts"
import { CopyButton, EmptyState, ErrorNote, Field, formatDate, Skeleton } from "../ui/controls.tsx"
import { usePageTitle } from "../ui/usePageTitle.ts"
import { useWorkspaceLists } from "../workspace/WorkspaceLists.tsx"

const FALLBACKS = [
  ["rootRedirectUrl", "The domain's root (/) goes to"],
  ["notFoundUrl", "An unknown slug goes to"],
  ["expiredUrl", "An expired link goes to (unless it sets its own)"]
] as const

type Check = { readonly lastCheckedAt: string | null; readonly lastReason: string | null }

const DomainCard = ({ domain, check, onChanged }: { domain: Domain; check: Check | undefined; onChanged: (d?: Domain) => void }) => {
  const [reason, setReason] = useState<string>()
  const [failure, setFailure] = useState<ApiFailure>()
  const [fallbacks, setFallbacks] = useState({
    rootRedirectUrl: domain.rootRedirectUrl ?? "",
    notFoundUrl: domain.notFoundUrl ?? "",
    expiredUrl: domain.expiredUrl ?? ""
  })
  const [saved, setSaved] = useState(false)
  return (
    <article className="panel domain" aria-labelledby={`domain-${domain.id}`}>
      <header>
        <h2 id={`domain-${domain.id}`}>{domain.host}</h2>
        <span className={`status ${domain.status}`} data-testid="domain-status">{domain.status}</span>
        {domain.primary && <span className="badge">primary</span>}
        <span className="badge">{domain.kind}</span>
      </header>
      <p>
        Verified: {formatDate(domain.verifiedAt)}
        {reason
          ? <> · Last check: <span role="status">{reason}</span></>
          : check?.lastCheckedAt
            ? <> · Last checked {formatDate(check.lastCheckedAt)}{check.lastReason ? <>: <span data-testid="last-reason">{check.lastReason}</span></> : null}</>
            : domain.kind === "custom" ? " · Not checked yet" : null}
      </p>
      {domain.dnsRecords.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption>DNS records to publish</caption>
            <thead><tr><th scope="col">Type</th><th scope="col">Name</th><th scope="col">Value</th></tr></thead>
            <tbody>
              {domain.dnsRecords.map((r, i) => (
                <tr key={i}>
                  <td>{r.type}</td>
                  <td><code>{r.name}</code> <CopyButton text={r.name} label="Copy name" /></td>
                  <td><code>{r.value}</code> <CopyButton text={r.value} label="Copy value" /></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div className="actions">
        {domain.kind === "custom" && (
          <button type="button" onClick={async () => {
            const o = await call((c) => c.domains.verify({ params: { id: domain.id } }))
            if (!o.ok) return setFailure(o.failure)
            setReason(o.value.reason)
            onChanged(o.value.domain)
          }}>Verify now</button>
        )}
        {domain.kind === "custom" && (
          <button type="button" className="danger" onClick={async () => {
            if (!window.confirm(`Remove ${domain.host} and every link on it?`)) return
            const o = await call((c) => c.domains.delete({ params: { id: domain.id } }))
            if (o.ok) onChanged()
            else setFailure(o.failure)
          }}>Remove domain</button>
        )}
      </div>
      <form onSubmit={async (e) => {
        e.preventDefault()
        const payload = Object.fromEntries(Object.entries(fallbacks).map(([k, v]) => [k, v.trim() === "" ? null : v.trim()]))
        const o = await call((c) => c.domains.update({ params: { id: domain.id }, payload }))
        if (!o.ok) return setFailure(o.failure)
        setFailure(undefined)
        setSaved(true)
        onChanged(o.value)
      }}>
        <fieldset>
          <legend>Fallbacks</legend>
          {FALLBACKS.map(([key, label]) => (
            <Field key={key} label={label} field={key} failure={failure}>
              {(p) => <input {...p} type="url" value={fallbacks[key]} onChange={(e) => {
                setSaved(false)
                setFallbacks({ ...fallbacks, [key]: e.target.value })
              }} />}
            </Field>
          ))}
          <button type="submit">Save fallbacks</button>
          {saved && <span role="status" className="ok-note"> Saved.</span>}
        </fieldset>
      </form>
      <ErrorNote failure={failure} fields={FALLBACKS.map(([k]) => k)} />
    </article>
  )
}

/** Domains: add a custom one, publish its DNS records, verify, set fallbacks. */
export const DomainsPage = () => {
  usePageTitle("Domains")
  const { domains } = useWorkspaceLists()
  const checks = useApi((c) => c.domains.checks(), [])
  const [host, setHost] = useState("")
  const [failure, setFailure] = useState<ApiFailure>()
  const custom = (domains.data ?? []).filter((d) => d.kind === "custom")
  return (
    <section aria-labelledby="domains-title">
      <h1 id="domains-title">Domains</h1>
      <form className="panel inline" id="new-domain" onSubmit={async (e) => {
        e.preventDefault()
        const o = await call((c) => c.domains.create({ payload: { host: host.trim() } }))
        if (!o.ok) return setFailure(o.failure)
        setFailure(undefined)
        setHost("")
        domains.reload()
      }}>
        <Field label="Add a custom domain" field="host" failure={failure} hint="e.g. go.example.com; you then publish the DNS records shown">
          {(p) => <input {...p} value={host} onChange={(e) => setHost(e.target.value)} placeholder="go.example.com" />}
        </Field>
        <button type="submit">Add domain</button>
        <ErrorNote failure={failure} fields={["host"]} />
      </form>
      <ErrorNote failure={domains.failure} retry={domains.reload} />
      {domains.data === undefined && domains.loading && <Skeleton label="Loading domains…" lines={4} />}
      {domains.data !== undefined && custom.length === 0 && (
        <EmptyState title="No custom domain yet.">
          <p>Short links use the workspace's own subdomain. Add a domain of yours (go.example.com) to brand them.</p>
          <button type="button" onClick={() => document.getElementById("new-domain")?.querySelector("input")?.focus()}>Add your domain</button>
        </EmptyState>
      )}
      {(domains.data ?? []).map((d) => (
        <DomainCard key={d.id} domain={d} check={checks.data?.data.find((c) => c.id === d.id)} onChanged={(changed) => {
          if (changed) domains.update((all) => all?.map((x) => (x.id === changed.id ? changed : x)))
          else domains.reload()
        }} />
      ))}
    </section>
  )
}
