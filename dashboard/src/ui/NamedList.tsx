import { useEffect, useId, useState } from "react"
import type { ApiFailure, Outcome } from "../api/failure.ts"
import { ErrorNote, Field } from "./controls.tsx"

/** A named thing of the workspace, coloured or not (tags are, folders are not). */
export interface Named {
  readonly id: string
  readonly name: string
  readonly color?: string | null
}

/** What one page of named things does through the API. */
export interface NamedListOf<Item extends Named> {
  /** "tag", "folder": in labels and messages. */
  readonly noun: string
  readonly title: string
  /** The choice of colours, for things that have one. */
  readonly colors?: ReadonlyArray<string>
  /** What deleting one does to its links, said before it is done. */
  readonly onDelete: string
  readonly list: () => Promise<Outcome<{ readonly data: ReadonlyArray<Item> }>>
  readonly create: (name: string, color: string | null) => Promise<Outcome<unknown>>
  readonly update: (item: Item, name: string, color: string | null) => Promise<Outcome<unknown>>
  readonly remove: (item: Item) => Promise<Outcome<unknown>>
}

const ColorSelect = (props: { id?: string; colors: ReadonlyArray<string>; value: string; onChange: (value: string) => void }) => (
  <select id={props.id} value={props.value} onChange={(e) => props.onChange(e.target.value)}>
    <option value="">No colour</option>
    {props.colors.map((c) => <option key={c} value={c}>{c}</option>)}
  </select>
)

const Row = <Item extends Named>({ of, item, onChanged }: { of: NamedListOf<Item>; item: Item; onChanged: () => void }) => {
  const [name, setName] = useState(item.name)
  const [color, setColor] = useState(item.color ?? "")
  const [failure, setFailure] = useState<ApiFailure>()
  const nameId = useId()
  const colorId = useId()
  return (
    <li className="crud-row">
      <form onSubmit={async (e) => {
        e.preventDefault()
        const o = await of.update(item, name, color === "" ? null : color)
        if (o.ok) {
          setFailure(undefined)
          onChanged()
        } else setFailure(o.failure)
      }}>
        {of.colors && <span className={`tag ${item.color ?? ""}`}>{item.name}</span>}
        <label htmlFor={nameId} className="visually-hidden">Name of {of.noun} {item.name}</label>
        <input id={nameId} value={name} onChange={(e) => setName(e.target.value)} aria-invalid={failure?.issues.some((i) => i.path[0] === "name") || undefined} />
        {of.colors && (
          <>
            <label htmlFor={colorId} className="visually-hidden">Colour of {of.noun} {item.name}</label>
            <ColorSelect id={colorId} colors={of.colors} value={color} onChange={setColor} />
          </>
        )}
        <button type="submit" className="small">{of.colors ? "Save" : "Rename"}</button>
        <button type="button" className="small danger" onClick={async () => {
          if (!window.confirm(`Delete the ${of.noun} ${item.name}? ${of.onDelete}`)) return
          const o = await of.remove(item)
          if (o.ok) onChanged()
          else setFailure(o.failure)
        }}>Delete</button>
      </form>
      <ErrorNote failure={failure} />
    </li>
  )
}

/** A page of named things: create, rename (and recolour), delete. */
export const NamedList = <Item extends Named>({ of }: { of: NamedListOf<Item> }) => {
  const [items, setItems] = useState<ReadonlyArray<Item>>([])
  const [name, setName] = useState("")
  const [color, setColor] = useState("")
  const [failure, setFailure] = useState<ApiFailure>()
  const titleId = useId()
  const load = () => of.list().then((o) => (o.ok ? setItems(o.value.data) : setFailure(o.failure)))
  useEffect(() => {
    load()
  }, [])
  return (
    <section aria-labelledby={titleId}>
      <h1 id={titleId}>{of.title}</h1>
      <form className="panel inline" onSubmit={async (e) => {
        e.preventDefault()
        const o = await of.create(name, color === "" ? null : color)
        if (!o.ok) return setFailure(o.failure)
        setFailure(undefined)
        setName("")
        load()
      }}>
        <Field label={`New ${of.noun}`} field="name" failure={failure}>
          {(p) => <input {...p} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        {of.colors && (
          <Field label="Colour" field="color" failure={failure}>
            {(p) => <ColorSelect id={p.id} colors={of.colors!} value={color} onChange={setColor} />}
          </Field>
        )}
        <button type="submit">Create {of.noun}</button>
        <ErrorNote failure={failure} fields={of.colors ? ["name", "color"] : ["name"]} />
      </form>
      <ul className="crud-list">{items.map((item) => <Row key={`${item.id}:${item.name}:${item.color}`} of={of} item={item} onChanged={load} />)}</ul>
      {items.length === 0 && <p>No {of.noun}s yet.</p>}
    </section>
  )
}
