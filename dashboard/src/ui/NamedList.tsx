import { useId, useState } from "react"
import type { ApiFailure, Outcome } from "../api/failure.ts"
import type { ApiState } from "../api/useApi.ts"
import { EmptyState, ErrorNote, Field, Skeleton } from "./controls.tsx"
import { usePageTitle } from "./usePageTitle.ts"

/** A named thing of the workspace, coloured or not (tags are, folders are not). */
export interface Named {
  readonly id: string
  readonly name: string
  readonly color?: string | null
}

/** What one page of named things does through the API; its list is the workspace's (WorkspaceLists). */
export interface NamedListOf<Item extends Named> {
  /** "tag", "folder": in labels and messages. */
  readonly noun: string
  readonly title: string
  /** What they are for, said when there are none yet. */
  readonly purpose: string
  /** The choice of colours, for things that have one. */
  readonly colors?: ReadonlyArray<string>
  /** What deleting one does to its links, said before it is done. */
  readonly onDelete: string
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
      <form aria-label={`${of.noun} ${item.name}`} onSubmit={async (e) => {
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
export const NamedList = <Item extends Named>({ of, list }: { of: NamedListOf<Item>; list: ApiState<ReadonlyArray<Item>> }) => {
  usePageTitle(of.title)
  const [name, setName] = useState("")
  const [color, setColor] = useState("")
  const [failure, setFailure] = useState<ApiFailure>()
  const titleId = useId()
  const inputId = useId()
  return (
    <section aria-labelledby={titleId}>
      <h1 id={titleId}>{of.title}</h1>
      <form className="panel inline" id={inputId} onSubmit={async (e) => {
        e.preventDefault()
        const o = await of.create(name, color === "" ? null : color)
        if (!o.ok) return setFailure(o.failure)
        setFailure(undefined)
        setName("")
        list.reload()
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
      <ErrorNote failure={list.failure} retry={list.reload} />
      {list.data === undefined && list.loading && <Skeleton label={`Loading ${of.noun}s…`} lines={3} />}
      {list.data !== undefined && (
        <ul className="crud-list">{list.data.map((item) => <Row key={`${item.id}:${item.name}:${item.color}`} of={of} item={item} onChanged={list.reload} />)}</ul>
      )}
      {list.data?.length === 0 && (
        <EmptyState title={`No ${of.noun}s yet.`}>
          <p>{of.purpose}</p>
          <button type="button" onClick={() => document.getElementById(inputId)?.querySelector("input")?.focus()}>Create your first {of.noun}</button>
        </EmptyState>
      )}
    </section>
  )
}
