import { useId, useRef, useState } from "react"
import type { Tag } from "../../../control/tags/schema.ts"
import { call } from "../api/client.ts"
import type { ApiFailure } from "../api/failure.ts"
import { ErrorNote } from "../ui/controls.tsx"
import { useWorkspaceLists } from "../workspace/WorkspaceLists.tsx"

interface Props {
  readonly label: string
  readonly value: ReadonlyArray<string>
  readonly onChange: (tagIds: Array<string>) => void
  /** Typing a name no tag has offers to create it. */
  readonly creates?: boolean
  readonly describedBy?: string
  readonly invalid?: boolean
}

/**
 * Tags as chips with a combobox to add more (ARIA 1.2 combobox with a listbox): type to narrow,
 * arrows to move, Enter to pick or to create a tag of that name, Backspace in an empty box to
 * remove the last chip, Escape to close.
 */
export const TagPicker = ({ label, value, onChange, creates = true, describedBy, invalid }: Props) => {
  const { tags } = useWorkspaceLists()
  const id = useId()
  const listId = `${id}-list`
  const input = useRef<HTMLInputElement>(null)
  const [text, setText] = useState("")
  const [open, setOpen] = useState(false)
  const [active, setActive] = useState(0)
  const [failure, setFailure] = useState<ApiFailure>()
  const all = tags.data ?? []
  const chosen = value.map((tagId) => all.find((t) => t.id === tagId)).filter((t): t is Tag => t !== undefined)
  const needle = text.trim().toLowerCase()
  const matches = all.filter((t) => !value.includes(t.id) && t.name.toLowerCase().includes(needle))
  const exact = all.some((t) => t.name.toLowerCase() === needle)
  const options: Array<{ key: string; label: string; pick: () => void }> = matches.map((t) => ({
    key: t.id,
    label: t.name,
    pick: () => {
      onChange([...value, t.id])
      setText("")
    }
  }))
  if (creates && needle !== "" && !exact) {
    options.push({
      key: "create",
      label: `Create tag “${text.trim()}”`,
      pick: async () => {
        const outcome = await call((c) => c.tags.create({ payload: { name: text.trim() } }))
        if (!outcome.ok) return setFailure(outcome.failure)
        setFailure(undefined)
        tags.update((list) => [...(list ?? []), outcome.value])
        onChange([...value, outcome.value.id])
        setText("")
      }
    })
  }
  const current = Math.min(active, options.length - 1)
  return (
    <div className={invalid ? "field invalid tag-picker" : "field tag-picker"}>
      <label htmlFor={id}>{label}</label>
      <div className="chip-box" onClick={() => input.current?.focus()}>
        {chosen.map((t) => (
          <span key={t.id} className={`tag ${t.color ?? ""}`}>
            {t.name}
            <button type="button" className="chip-remove" aria-label={`Remove tag ${t.name}`} onClick={() => onChange(value.filter((v) => v !== t.id))}>×</button>
          </span>
        ))}
        <input
          ref={input}
          id={id}
          role="combobox"
          aria-expanded={open && options.length > 0}
          aria-controls={listId}
          aria-autocomplete="list"
          aria-activedescendant={open && options.length > 0 ? `${listId}-${current}` : undefined}
          aria-describedby={describedBy}
          aria-invalid={invalid || undefined}
          autoComplete="off"
          placeholder={chosen.length === 0 ? (creates ? "Add or create tags" : "Any tag") : ""}
          value={text}
          onChange={(e) => {
            setText(e.target.value)
            setOpen(true)
            setActive(0)
          }}
          onFocus={() => setOpen(true)}
          onBlur={() => setTimeout(() => setOpen(false), 150)}
          onKeyDown={(e) => {
            if (e.key === "ArrowDown") {
              e.preventDefault()
              setOpen(true)
              setActive((a) => Math.min(a + 1, options.length - 1))
            } else if (e.key === "ArrowUp") {
              e.preventDefault()
              setActive((a) => Math.max(a - 1, 0))
            } else if (e.key === "Enter") {
              if (open && options[current]) {
                e.preventDefault()
                options[current].pick()
              }
            } else if (e.key === "Escape") {
              setOpen(false)
            } else if (e.key === "Backspace" && text === "" && value.length > 0) {
              onChange(value.slice(0, -1))
            }
          }}
        />
      </div>
      <ul id={listId} role="listbox" aria-label={`${label}: choices`} className="tag-options" hidden={!open || options.length === 0}>
        {options.map((option, i) => (
          <li
            key={option.key}
            id={`${listId}-${i}`}
            role="option"
            aria-selected={i === current}
            className={i === current ? "active" : undefined}
            onMouseDown={(e) => {
              e.preventDefault()
              option.pick()
            }}
          >
            {option.label}
          </li>
        ))}
      </ul>
      <ErrorNote failure={failure} />
    </div>
  )
}
