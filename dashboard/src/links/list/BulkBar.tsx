import { useId, useState } from "react"
import type { Link } from "../../../../control/links/schema.ts"
import type { ApiFailure, Outcome } from "../../api/failure.ts"
import { bulk } from "../../api/workspaceCalls.ts"
import { useWorkspaceLists } from "../../workspace/WorkspaceLists.tsx"

interface Props {
  readonly selected: ReadonlyArray<Link>
  readonly onDone: () => void
  readonly onFailure: (failure: ApiFailure) => void
}

/** What can be done to the selected links at once: tag, move, delete. */
export const BulkBar = ({ selected, onDone, onFailure }: Props) => {
  const { tags, folders } = useWorkspaceLists()
  const [tag, setTag] = useState("")
  const [folder, setFolder] = useState("")
  const ids = { tag: useId(), folder: useId() }
  const run = async (outcome: Promise<Outcome<unknown>>) => {
    const result = await outcome
    if (result.ok) onDone()
    else onFailure(result.failure)
  }
  return (
    <div className="bulk-bar" role="region" aria-label="Selected links">
      <strong>{selected.length} selected</strong>
      <span className="bulk-action">
        <label htmlFor={ids.tag}>Tag with</label>
        <select id={ids.tag} value={tag} onChange={(e) => setTag(e.target.value)}>
          <option value="">Choose a tag</option>
          {(tags.data ?? []).map((t) => <option key={t.id} value={t.id}>{t.name}</option>)}
        </select>
        <button type="button" disabled={!tag} onClick={() =>
          // Adds the tag to each link's own tags: the bulk call sets the list it is given.
          run(Promise.all(selected.map((l) => bulk.update([l.id], { tagIds: [...new Set([...l.tags.map((t) => t.id), tag])] })))
            .then((all): Outcome<unknown> => all.find((o) => !o.ok) ?? { ok: true, value: undefined }))}>Apply tag</button>
      </span>
      <span className="bulk-action">
        <label htmlFor={ids.folder}>Move to</label>
        <select id={ids.folder} value={folder} onChange={(e) => setFolder(e.target.value)}>
          <option value="">Choose a folder</option>
          <option value="none">No folder</option>
          {(folders.data ?? []).map((f) => <option key={f.id} value={f.id}>{f.name}</option>)}
        </select>
        <button type="button" disabled={!folder} onClick={() => run(bulk.update(selected.map((l) => l.id), { folderId: folder === "none" ? null : folder }))}>Move</button>
      </span>
      <button type="button" className="danger" onClick={() => {
        if (window.confirm(`Delete ${selected.length} links? Their short links stop working.`)) run(bulk.delete(selected.map((l) => l.id)))
      }}>Delete</button>
    </div>
  )
}
