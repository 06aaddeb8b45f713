import { type ReactNode, useId, useState } from "react"
import { type ApiFailure, issuesAt } from "../api/failure.ts"

const under = (path: string, field: string) => path === field || path.startsWith(field + ".")

/**
 * An API failure in words, once: field problems are shown beside their fields (`fields` lists
 * them), so this says only what no field says. With `retry`, a button asks again.
 */
export const ErrorNote = ({ failure, fields = [], retry }: { failure: ApiFailure | undefined; fields?: ReadonlyArray<string>; retry?: () => void }) => {
  if (failure === undefined || failure.code === "aborted") return null
  const elsewhere = failure.issues.filter((i) => !fields.some((f) => under(i.path.join("."), f)))
  const text = failure.issues.length > 0 && elsewhere.length === 0
    ? "Some fields need attention: see the messages beside them."
    : elsewhere.length > 1
      ? "Some values need attention:"
      : failure.status === 429
        ? `${failure.message}. The numbers show again once the minute is over.`
        : failure.message
  return (
    <div role="alert" className="error-note">
      {text}
      {elsewhere.length > 1 && <ul>{[...new Set(elsewhere.map((i) => `${i.path.join(".")}: ${i.message}`))].map((line) => <li key={line}>{line}</li>)}</ul>}
      {retry && <> <button type="button" className="small" onClick={retry}>Try again</button></>}
    </div>
  )
}

/** The 422 issues at one field (or only exactly there, for a group whose items have fields of their own), tied to it by id. */
export const FieldIssues = ({ id, failure, field, exact = false }: { id: string; failure: ApiFailure | undefined; field: string; exact?: boolean }) => {
  const messages = issuesAt(failure, field, exact)
  if (messages.length === 0) return null
  return <span id={id} className="field-issue">{messages.join("; ")}</span>
}

interface FieldProps {
  readonly label: ReactNode
  readonly field?: string
  readonly failure?: ApiFailure | undefined
  readonly hint?: ReactNode
  readonly children: (props: { id: string; "aria-describedby"?: string; "aria-invalid"?: boolean }) => ReactNode
}

/** A labelled control with its hint and the API's issues at `field`, said once. */
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
export const PlanNote = ({ reason, id }: { reason: string | undefined; id?: string }) =>
  reason === undefined ? null : <small id={id} className="plan-note">{reason}</small>

/** A grey block where a number or a list will be: loading, said to screen readers once. */
export const Skeleton = ({ label, lines = 1, className = "" }: { label?: string; lines?: number; className?: string }) => (
  <div className={`skeleton ${className}`} role={label ? "status" : undefined} aria-busy="true">
    {label && <span className="visually-hidden">{label}</span>}
    {Array.from({ length: lines }, (_, i) => <span key={i} className="skeleton-line" aria-hidden="true" />)}
  </div>
)

/** Nothing here yet, and what to do about it. */
export const EmptyState = ({ title, children }: { title: string; children?: ReactNode }) => (
  <div className="empty-state">
    <p><strong>{title}</strong></p>
    {children}
  </div>
)

export const formatDate = (iso: string | null | undefined) =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }) : "—"

export const formatCount = (n: number) => n.toLocaleString()

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

/** A workspace role (member or admin) to give a key or an invited person, with the API's issues at `role`. */
export const RoleField = <R extends "member" | "admin">({ label, value, onChange, failure }: {
  readonly label: ReactNode
  readonly value: R
  readonly onChange: (role: R) => void
  readonly failure: ApiFailure | undefined
}) => (
  <Field label={label} field="role" failure={failure}>
    {(p) => (
      <select {...p} value={value} onChange={(e) => onChange(e.target.value as R)}>
        <option value="member">member</option>
        <option value="admin">admin</option>
      </select>
    )}
  </Field>
)
