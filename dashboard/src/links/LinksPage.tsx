import { lazy, Suspense, useState } from "react"
import type { ApiFailure } from "../api/failure.ts"
import { bulk } from "../api/workspaceCalls.ts"
import { useLiveClicks } from "../live/LiveEvents.tsx"
import { download, EmptyState, ErrorNote, Skeleton } from "../ui/controls.tsx"
import { Link } from "../ui/router.tsx"
import { usePageTitle } from "../ui/usePageTitle.ts"
import { BulkBar } from "./list/BulkBar.tsx"
import { LinkFiltersForm } from "./list/LinkFiltersForm.tsx"
import { LinksTable } from "./list/LinksTable.tsx"
import { useLinkClicks } from "./list/useLinkClicks.ts"
import { filtering, NO_FILTERS, useLinkList } from "./list/useLinkList.ts"

// The CSV reader it shows failed rows with is loaded only when an import is opened.
const ImportPanel = lazy(() => import("./ImportPanel.tsx").then((m) => ({ default: m.ImportPanel })))

/** The links of the workspace: filters, bulk actions, import and export, clicks that count up live. */
export const LinksPage = () => {
  usePageTitle("Links")
  const [filters, setFilters] = useState(NO_FILTERS)
  const list = useLinkList(filters)
  const clicks = useLinkClicks((list.links ?? []).map((l) => l.id))
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set())
  const [showImport, setShowImport] = useState(false)
  const [failure, setFailure] = useState<ApiFailure>()
  useLiveClicks((click) => clicks.add(click.linkId, 1))

  const refresh = () => {
    setSelected(new Set())
    setFailure(undefined)
    list.refresh()
  }
  const links = list.links
  return (
    <section aria-labelledby="links-title">
      <div className="page-head">
        <h1 id="links-title">Links</h1>
        <div className="actions">
          <Link to="/links/new" className="button">New link</Link>
          <button type="button" onClick={() => setShowImport((s) => !s)} aria-expanded={showImport}>Import CSV</button>
          <button type="button" onClick={async () => {
            const outcome = await bulk.exportCsv()
            if (outcome.ok) download(outcome.value, "links.csv")
            else setFailure(outcome.failure)
          }}>Export CSV</button>
        </div>
      </div>
      {showImport && <Suspense fallback={<Skeleton label="Loading the import…" />}><ImportPanel onDone={refresh} /></Suspense>}
      <LinkFiltersForm filters={filters} onChange={setFilters} />
      <ErrorNote failure={failure} />
      <ErrorNote failure={list.failure} retry={list.refresh} />
      {clicks.failure && <ErrorNote failure={{ ...clicks.failure, message: `Click counts could not be read: ${clicks.failure.message}` }} retry={clicks.retry} />}
      {selected.size > 0 && links && (
        <BulkBar selected={links.filter((l) => selected.has(l.id))} onDone={refresh} onFailure={setFailure} />
      )}
      {links === undefined && list.loading && <Skeleton label="Loading links…" lines={6} />}
      {links !== undefined && links.length > 0 && <LinksTable links={links} clicks={clicks} selected={selected} onSelect={setSelected} />}
      {links !== undefined && links.length === 0 && (filtering(filters)
        ? <EmptyState title="No links match these filters."><button type="button" onClick={() => setFilters(NO_FILTERS)}>Clear the filters</button></EmptyState>
        : (
          <EmptyState title="No links yet.">
            <p>Shorten your first URL, or bring your links over from Bitly, Dub or Shlink.</p>
            <div className="actions">
              <Link to="/links/new" className="button">Create your first link</Link>
              <button type="button" onClick={() => setShowImport(true)}>Import a CSV</button>
            </div>
          </EmptyState>
        ))}
      {links !== undefined && list.loading && <Skeleton label="Loading more links…" />}
      {list.more && !list.loading && <button type="button" onClick={list.loadMore}>Load more</button>}
    </section>
  )
}
