import { useCallback, useEffect, useId, useState } from "react"
import type { Domain } from "../../../control/domains/schema.ts"
import type { Folder } from "../../../control/folders/schema.ts"
import type { Link as LinkRow } from "../../../control/links/schema.ts"
import type { Tag } from "../../../control/tags/schema.ts"
import { call } from "../api/client.ts"
import type { ApiFailure } from "../api/failure.ts"
import { bulk } from "../api/workspaceCalls.ts"
import { CopyButton, download, ErrorNote, formatDate } from "../ui/controls.tsx"
import { Link } from "../ui/router.tsx"
import { ImportPanel } from "./ImportPanel.tsx"

interface Filters {
  readonly search: string
  readonly domain: string
  readonly folderId: string
  readonly tagIds: ReadonlyArray<string>
}

const PAGE = 25

/** The links of the workspace, newest first; "Load more" follows the cursor, so pages hold while links are added. */
export const LinksPage = () => {
  const [filters, setFilters] = useState<Filters>({ search: "", domain: "", folderId: "", tagIds: [] })
  const [links, setLinks] = useState<ReadonlyArray<LinkRow>>([])
  const [cursor, setCursor] = useState<string | null>(null)
  const [loading, setLoading] = useState(true)
  const [failure, setFailure] = useState<ApiFailure>()
  const [clicks, setClicks] = useState<ReadonlyMap<string, number>>(new Map())
  const [domains, setDomains] = useState<ReadonlyArray<Domain>>([])
  const [folders, setFolders] = useState<ReadonlyArray<Folder>>([])
  const [tags, setTags] = useState<ReadonlyArray<Tag>>([])
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set())
  const [showImport, setShowImport] = useState(false)
  const [bulkTag, setBulkTag] = useState("")
  const [bulkFolder, setBulkFolder] = useState("")
  const ids = { search: useId(), domain: useId(), folder: useId(), tags: useId(), bulkTag: useId(), bulkFolder: useId() }

  const query = (f: Filters, after: string | null) => ({
    limit: PAGE,
    ...(f.search ? { search: f.search } : {}),
    ...(f.domain ? { domain: f.domain } : {}),
    ...(f.folderId ? { folderId: f.folderId } : {}),
    ...(f.tagIds.length > 0 ? { tagIds: f.tagIds.join(",") } : {}),
    ...(after ? { cursor: after } : {})
  })

  const load = useCallback(async (f: Filters, after: string | null) => {
    setLoading(true)
    const outcome = await call((c) => c.links.list({ query: query(f, after) }))
    setLoading(false)
    if (!outcome.ok) return setFailure(outcome.failure)
    setFailure(undefined)
    setLinks((previous) => (after ? [...previous, ...outcome.value.data] : outcome.value.data))
    setCursor(outcome.value.nextCursor)
  }, [])

  useEffect(() => {
    const timer = setTimeout(() => load(filters, null), filters.search ? 250 : 0)
    return () => clearTimeout(timer)
  }, [filters, load])

  useEffect(() => {
    call((c) => c.domains.list()).then((o) => o.ok && setDomains(o.value.data))
    call((c) => c.folders.list()).then((o) => o.ok && setFolders(o.value.data))
    call((c) => c.tags.list()).then((o) => o.ok && setTags(o.value.data))
    // Clicks per link: the workspace's top links over all of its history.
    call((c) => c.analytics.query({ query: { groupBy: "top_links", interval: "all", limit: 1000 } })).then((o) => {
      if (!o.ok || !Array.isArray(o.value.data)) return
      const counts = new Map<string, number>()
      for (const row of o.value.data) if ("linkId" in row) counts.set(row.linkId, row.clicks)
      setClicks(counts)
    })
  }, [])

  const refresh = () => {
    setSelected(new Set())
    load(filters, null)
  }
  const toggle = (id: string) => setSelected((s) => {
    const next = new Set(s)
    if (next.has(id)) next.delete(id)
    else next.add(id)
    return next
  })
  const runBulk = async (outcome: Promise<{ ok: boolean; failure?: ApiFailure }>) => {
    const result = await outcome
    if (!result.ok) setFailure(result.failure)
    else refresh()
  }

  return (
    <section aria-labelledby="links-title">
      <div className="page-head">
        <h1 id="links-title">Links</h1>
        <div className="actions">
          <Link to="/links/new" className="button">New link</Link>
          <button type="button" onClick={() => setShowImport((s) => !s)} aria-expanded={showImport}>Import CSV</button>
          <button
            type="button"
            onClick={async () => {
              const outcome = await bulk.exportCsv()
              if (outcome.ok) download(outcome.value, "links.csv")
              else setFailure(outcome.failure)
            }}
          >
            Export CSV
          </button>
        </div>
      </div>
      {showImport && <ImportPanel onDone={refresh} />}
      <form className="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <div className="field">
          <label htmlFor={ids.search}>Search</label>
          <input id={ids.search} type="search" placeholder="Slug, URL or title" value={filters.search} onChange={(e) => setFilters({ ...filters, search: e.target.value })} />
        </div>
        <div className="field">
          <label htmlFor={ids.domain}>Domain</label>
          <select id={ids.domain} value={filters.domain} onChange={(e) => setFilters({ ...filters, domain: e.target.value })}>
            <option value="">All domains</option>
            {domains.map((d) => <option key={d.id} value={d.host}>{d.host}</option>)}
          </select>
        </div>
        <div className="field">
          <label htmlFor={ids.folder}>Folder</label>
          <select id={ids.folder} value={filters.folderId} onChange={(e) => setFilters({ ...filters, folderId: e.target.value })}>
            <option value="">All folders</option>
            {folders.map((f) => <option key={f.id} value={f.id}>{f.name}</option>)}
          </select>
        </div>
        <div className="field">
          <label htmlFor={ids.tags}>Tags</label>
          <select id={ids.tags} multiple size={Math.min(4, Math.max(2, tags.length))} value={[...filters.tagIds]}
            onChange={(e) => setFilters({ ...filters, tagIds: [...e.target.selectedOptions].map((o) => o.value) })}>
            {tags.map((t) => <option key={t.id} value={t.id}>{t.name}</option>)}
          </select>
        </div>
      </form>
      <ErrorNote failure={failure} />
      {selected.size > 0 && (
        <div className="bulk-bar" role="region" aria-label="Selected links">
          <strong>{selected.size} selected</strong>
          <label htmlFor={ids.bulkTag}>Tag with</label>
          <select id={ids.bulkTag} value={bulkTag} onChange={(e) => setBulkTag(e.target.value)}>
            <option value="">Choose a tag</option>
            {tags.map((t) => <option key={t.id} value={t.id}>{t.name}</option>)}
          </select>
          <button type="button" disabled={!bulkTag} onClick={() => {
            // Adds the tag to each link's own tags: the bulk call sets the list it is given.
            const chosen = links.filter((l) => selected.has(l.id))
            runBulk(Promise.all(chosen.map((l) => bulk.update([l.id], { tagIds: [...new Set([...l.tags.map((t) => t.id), bulkTag])] })))
              .then((all) => all.find((o) => !o.ok) ?? { ok: true }))
          }}>Apply tag</button>
          <label htmlFor={ids.bulkFolder}>Move to</label>
          <select id={ids.bulkFolder} value={bulkFolder} onChange={(e) => setBulkFolder(e.target.value)}>
            <option value="">Choose a folder</option>
            <option value="none">No folder</option>
            {folders.map((f) => <option key={f.id} value={f.id}>{f.name}</option>)}
          </select>
          <button type="button" disabled={!bulkFolder} onClick={() => runBulk(bulk.update([...selected], { folderId: bulkFolder === "none" ? null : bulkFolder }))}>Move</button>
          <button type="button" className="danger" onClick={() => {
            if (window.confirm(`Delete ${selected.size} links? Their short links stop working.`)) runBulk(bulk.delete([...selected]))
          }}>Delete</button>
        </div>
      )}
      <div className="table-wrap">
        <table className="links">
          <caption className="visually-hidden">Links, newest first</caption>
          <thead>
            <tr>
              <th scope="col">
                <input type="checkbox" aria-label="Select all links shown"
                  checked={links.length > 0 && selected.size === links.length}
                  onChange={(e) => setSelected(e.target.checked ? new Set(links.map((l) => l.id)) : new Set())} />
              </th>
              <th scope="col">Short link</th>
              <th scope="col">Destination</th>
              <th scope="col">Tags</th>
              <th scope="col" className="num">Clicks</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {links.map((link) => (
              <tr key={link.id}>
                <td><input type="checkbox" aria-label={`Select ${link.shortLink}`} checked={selected.has(link.id)} onChange={() => toggle(link.id)} /></td>
                <td className="short">
                  <Link to={`/links/${encodeURIComponent(link.id)}`}>{link.domain}/{link.slug}</Link>
                  <CopyButton text={link.shortLink} />
                  {link.hasPassword && <span className="badge" title="Password protected">🔒</span>}
                </td>
                <td className="dest" title={link.url}>{link.title ? <><strong>{link.title}</strong><br /></> : null}{link.url}</td>
                <td>{link.tags.map((t) => <span key={t.id} className={`tag ${t.color ?? ""}`}>{t.name}</span>)}</td>
                <td className="num">{clicks.get(link.id) ?? 0}</td>
                <td>{formatDate(link.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {!loading && links.length === 0 && <p>No links{filters.search || filters.domain || filters.folderId || filters.tagIds.length ? " match these filters" : " yet"}.</p>}
      {loading && <p role="status">Loading…</p>}
      {cursor && !loading && <button type="button" onClick={() => load(filters, cursor)}>Load more</button>}
    </section>
  )
}
