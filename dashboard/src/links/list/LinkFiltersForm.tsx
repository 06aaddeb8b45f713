import { useId } from "react"
import { useWorkspaceLists } from "../../workspace/WorkspaceLists.tsx"
import { TagPicker } from "../TagPicker.tsx"
import type { LinkFilters } from "./useLinkList.ts"

/** Search, domain, folder and tags: the links table's filters. */
export const LinkFiltersForm = ({ filters, onChange }: { filters: LinkFilters; onChange: (f: LinkFilters) => void }) => {
  const { domains, folders } = useWorkspaceLists()
  const ids = { search: useId(), domain: useId(), folder: useId() }
  return (
    <form className="filters" role="search" aria-label="Filter links" onSubmit={(e) => e.preventDefault()}>
      <div className="field">
        <label htmlFor={ids.search}>Search</label>
        <input id={ids.search} type="search" placeholder="Slug, URL or title" value={filters.search} onChange={(e) => onChange({ ...filters, search: e.target.value })} />
      </div>
      <div className="field">
        <label htmlFor={ids.domain}>Domain</label>
        <select id={ids.domain} value={filters.domain} onChange={(e) => onChange({ ...filters, domain: e.target.value })}>
          <option value="">All domains</option>
          {(domains.data ?? []).map((d) => <option key={d.id} value={d.host}>{d.host}</option>)}
        </select>
      </div>
      <div className="field">
        <label htmlFor={ids.folder}>Folder</label>
        <select id={ids.folder} value={filters.folderId} onChange={(e) => onChange({ ...filters, folderId: e.target.value })}>
          <option value="">All folders</option>
          {(folders.data ?? []).map((f) => <option key={f.id} value={f.id}>{f.name}</option>)}
        </select>
      </div>
      <TagPicker label="Tags" value={filters.tagIds} onChange={(tagIds) => onChange({ ...filters, tagIds })} creates={false} />
    </form>
  )
}
