import { type ReactNode, useId, useState } from "react"
import { type ApiFailure, issuesAt } from "../api/failure.ts"

/** An API failure in words; field problems are shown beside their fields, the rest here. */
export const ErrorNote = ({ failure, fields = [] }: { failure: ApiFailure | undefined; fields?: ReadonlyArray<string> }) => {
  if (failure === undefined) return null
  const elsewhere = failure.issues.filter((i) => !fields.some((f) => {
    const path = i.path.join(".")
    return path === f || path.startsWith(f + ".")
  }))
  const showMessage = failure.issues.length === 0 || elsewhere.length > 0
  return showMessage ? (
    <div role="alert" className="error-note">
      {failure.message}
      {elsewhere.length > 1 && <ul>{elsewhere.map((i, n) => <li key={n}>{i.path.join(".")}: {i.message}</li>)}</ul>}
    </div>
  ) : (
    <div role="alert" className="error-note">Some fields need attention: see the messages beside them.</div>
  )
}

/** The 422 issues at one field, tied to it with aria-describedby. */
export const FieldIssues = ({ id, failure, field }: { id: string; failure: ApiFailure | undefined; field: string }) => {
  const messages = issuesAt(failure, field)
  if (messages.length === 0) return null
  return <span id={id} className="field-issue" role="status">{messages.join("; ")}</span>
}

interface FieldProps {
  readonly label: ReactNode
  readonly field?: string
  readonly failure?: ApiFailure | undefined
  readonly hint?: ReactNode
  readonly children: (props: { id: string; "aria-describedby"?: string; "aria-invalid"?: boolean }) => ReactNode
}

/** A labelled control with its hint and the API's issues at `field`. */
export const Field = ({ label, field, failure, hint, children }: FieldProps) => {
  const id = useId()
  const issueId = `${id}-issue`
  const hintId = `${id}-hint`
  const invalid = field !== undefined && issuesAt(failure, field).length > 0
  const describedBy = [hint ? hintId : undefined, invalid ? issueId : undefined].filter(Boolean).join(" ") || undefined
  return (
    <div className={invalid ? "field invalid" : "field"}>
      <label htmlFor={id}>{label}</label>
      {children({ id, "aria-describedby": describedBy, "aria-invalid": invalid || undefined })}
      {hint && <small id={hintId} className="hint">{hint}</small>}
      {field !== undefined && <FieldIssues id={issueId} failure={failure} field={field} />}
    </div>
  )
}

export const CopyButton = ({ text, label = "Copy" }: { text: string; label?: string }) => {
  const [copied, setCopied] = useState(false)
  return (
    <button
      type="button"
      className="small"
      aria-label={`${label}: ${text}`}
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text)
        } catch {
          // Without clipboard permission (plain http on another host): select-and-copy by hand still works.
          const area = document.createElement("textarea")
          area.value = text
          document.body.append(area)
          area.select()
          document.execCommand("copy")
          area.remove()
        }
        setCopied(true)
        setTimeout(() => setCopied(false), 1500)
      }}
    >
      {copied ? "Copied" : label}
    </button>
  )
}

/** Why a control is disabled: a plan the workspace lacks. */
export const PlanNote = ({ reason }: { reason: string | undefined }) =>
  reason === undefined ? null : <small className="plan-note">{reason}</small>

export const formatDate = (iso: string | null | undefined) =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }) : "—"

/** Offers a Blob as a file download, without leaving the page. */
export const download = (blob: Blob, name: string) => {
  const url = URL.createObjectURL(blob)
  const a = document.createElement("a")
  a.href = url
  a.download = name
  document.body.append(a)
  a.click()
  a.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}
