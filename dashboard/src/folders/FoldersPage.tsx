import { useEffect, useId, useState } from "react"
import type { Folder } from "../../../control/folders/schema.ts"
import { call } from "../api/client.ts"
import type { ApiFailure } from "../api/failure.ts"
import { ErrorNote, Field } from "../ui/controls.tsx"

const FolderRow = ({ folder, onChanged }: { folder: Folder; onChanged: () => void }) => {
  const [name, setName] = useState(folder.name)
  const [failure, setFailure] = useState<ApiFailure>()
  const nameId = useId()
  return (
    <li className="crud-row">
      <form onSubmit={async (e) => {
        e.preventDefault()
        const o = await call((c) => c.folders.update({ params: { id: folder.id }, payload: { name } }))
        if (o.ok) {
          setFailure(undefined)
          onChanged()
        } else setFailure(o.failure)
      }}>
        <label htmlFor={nameId} className="visually-hidden">Name of folder {folder.name}</label>
        <input id={nameId} value={name} onChange={(e) => setName(e.target.value)} />
        <button type="submit" className="small">Rename</button>
        <button type="button" className="small danger" onClick={async () => {
          if (!window.confirm(`Delete the folder ${folder.name}? Its links stay, outside any folder.`)) return
          const o = await call((c) => c.folders.delete({ params: { id: folder.id } }))
          if (o.ok) onChanged()
          else setFailure(o.failure)
        }}>Delete</button>
      </form>
      <ErrorNote failure={failure} />
    </li>
  )
}

/** Folders: create, rename, delete. */
export const FoldersPage = () => {
  const [folders, setFolders] = useState<ReadonlyArray<Folder>>([])
  const [name, setName] = useState("")
  const [failure, setFailure] = useState<ApiFailure>()
  const load = () => call((c) => c.folders.list()).then((o) => (o.ok ? setFolders(o.value.data) : setFailure(o.failure)))
  useEffect(() => {
    load()
  }, [])
  return (
    <section aria-labelledby="folders-title">
      <h1 id="folders-title">Folders</h1>
      <form className="panel inline" onSubmit={async (e) => {
        e.preventDefault()
        const o = await call((c) => c.folders.create({ payload: { name } }))
        if (!o.ok) return setFailure(o.failure)
        setFailure(undefined)
        setName("")
        load()
      }}>
        <Field label="New folder" field="name" failure={failure}>
          {(p) => <input {...p} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <button type="submit">Create folder</button>
        <ErrorNote failure={failure} fields={["name"]} />
      </form>
      <ul className="crud-list">{folders.map((f) => <FolderRow key={`${f.id}:${f.name}`} folder={f} onChanged={load} />)}</ul>
      {folders.length === 0 && <p>No folders yet.</p>}
    </section>
  )
}
