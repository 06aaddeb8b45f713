import { useEffect, useId, useState } from "react"
import { type Tag, TAG_COLORS } from "../../../control/tags/schema.ts"
import { call } from "../api/client.ts"
import type { ApiFailure } from "../api/failure.ts"
import { ErrorNote, Field } from "../ui/controls.tsx"

type Color = (typeof TAG_COLORS)[number]

const TagRow = ({ tag, onChanged }: { tag: Tag; onChanged: () => void }) => {
  const [name, setName] = useState(tag.name)
  const [color, setColor] = useState<Color | "">(tag.color ?? "")
  const [failure, setFailure] = useState<ApiFailure>()
  const nameId = useId()
  const colorId = useId()
  return (
    <li className="crud-row">
      <form onSubmit={async (e) => {
        e.preventDefault()
        const o = await call((c) => c.tags.update({ params: { id: tag.id }, payload: { name, color: color === "" ? null : color } }))
        if (o.ok) {
          setFailure(undefined)
          onChanged()
        } else setFailure(o.failure)
      }}>
        <span className={`tag ${tag.color ?? ""}`}>{tag.name}</span>
        <label htmlFor={nameId} className="visually-hidden">Name of tag {tag.name}</label>
        <input id={nameId} value={name} onChange={(e) => setName(e.target.value)} aria-invalid={failure?.issues.some((i) => i.path[0] === "name") || undefined} />
        <label htmlFor={colorId} className="visually-hidden">Colour of tag {tag.name}</label>
        <select id={colorId} value={color} onChange={(e) => setColor(e.target.value as Color | "")}>
          <option value="">No colour</option>
          {TAG_COLORS.map((c) => <option key={c} value={c}>{c}</option>)}
        </select>
        <button type="submit" className="small">Save</button>
        <button type="button" className="small danger" onClick={async () => {
          if (!window.confirm(`Delete the tag ${tag.name}? Its links stay, untagged.`)) return
          const o = await call((c) => c.tags.delete({ params: { id: tag.id } }))
          if (o.ok) onChanged()
          else setFailure(o.failure)
        }}>Delete</button>
      </form>
      <ErrorNote failure={failure} />
    </li>
  )
}

/** Tags: create, rename, recolour, delete. */
export const TagsPage = () => {
  const [tags, setTags] = useState<ReadonlyArray<Tag>>([])
  const [name, setName] = useState("")
  const [color, setColor] = useState<Color | "">("")
  const [failure, setFailure] = useState<ApiFailure>()
  const load = () => call((c) => c.tags.list()).then((o) => (o.ok ? setTags(o.value.data) : setFailure(o.failure)))
  useEffect(() => {
    load()
  }, [])
  return (
    <section aria-labelledby="tags-title">
      <h1 id="tags-title">Tags</h1>
      <form className="panel inline" onSubmit={async (e) => {
        e.preventDefault()
        const o = await call((c) => c.tags.create({ payload: color === "" ? { name } : { name, color } }))
        if (!o.ok) return setFailure(o.failure)
        setFailure(undefined)
        setName("")
        load()
      }}>
        <Field label="New tag" field="name" failure={failure}>
          {(p) => <input {...p} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field label="Colour" field="color" failure={failure}>
          {(p) => (
            <select {...p} value={color} onChange={(e) => setColor(e.target.value as Color | "")}>
              <option value="">No colour</option>
              {TAG_COLORS.map((c) => <option key={c} value={c}>{c}</option>)}
            </select>
          )}
        </Field>
        <button type="submit">Create tag</button>
        <ErrorNote failure={failure} fields={["name", "color"]} />
      </form>
      <ul className="crud-list">{tags.map((t) => <TagRow key={`${t.id}:${t.name}:${t.color}`} tag={t} onChanged={load} />)}</ul>
      {tags.length === 0 && <p>No tags yet.</p>}
    </section>
  )
}
