import { useEffect, useId, useRef, useState } from "react"
import type { ApiFailure } from "../api/failure.ts"
import { bulk, type ImportJob } from "../api/workspaceCalls.ts"
import { ErrorNote } from "../ui/controls.tsx"

// A job cancelled through the API (DELETE /v1/links/import/{id}) is over too.
const FINISHED = new Set(["done", "cancelled"])

/** Uploads a CSV as an import job, shows its progress, then the rows that failed and why. */
export const ImportPanel = ({ onDone }: { onDone: () => void }) => {
  const fileId = useId()
  const [file, setFile] = useState<File>()
  const [job, setJob] = useState<ImportJob>()
  const [failure, setFailure] = useState<ApiFailure>()
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined)
  useEffect(() => () => clearTimeout(timer.current), [])

  const poll = async (id: string) => {
    const outcome = await bulk.importStatus(id)
    if (!outcome.ok) return setFailure(outcome.failure)
    setJob(outcome.value)
    if (FINISHED.has(outcome.value.status)) onDone()
    else timer.current = setTimeout(() => poll(id), 500)
  }

  const total = job?.totalRows ?? 0
  const done = job?.rowsDone ?? 0
  const failedRows = job?.failures ?? []
  return (
    <section className="panel" aria-labelledby={`${fileId}-title`}>
      <h2 id={`${fileId}-title`}>Import links from CSV</h2>
      <form onSubmit={async (e) => {
        e.preventDefault()
        if (!file) return
        setFailure(undefined)
        const outcome = await bulk.importCsv(file)
        if (!outcome.ok) return setFailure(outcome.failure)
        setJob(outcome.value)
        poll(outcome.value.id)
      }}>
        <div className="field">
          <label htmlFor={fileId}>CSV file</label>
          <input id={fileId} type="file" accept=".csv,text/csv" onChange={(e) => setFile(e.target.files?.[0])} />
          <small className="hint">Our own export, or Bitly, Dub or Shlink exports. Links whose slug exists already are skipped.</small>
        </div>
        <button type="submit" disabled={!file || (job !== undefined && !FINISHED.has(job.status))}>Import</button>
      </form>
      <ErrorNote failure={failure} />
      {job && (
        <div className="import-progress">
          <label>
            Progress ({job.status})
            <progress max={total || 1} value={total ? done : FINISHED.has(job.status) ? 1 : 0} aria-label="Import progress" />
          </label>
          <p role="status">{done} of {total || "?"} rows · {job.created} created · {job.skipped} skipped · {job.failed} failed</p>
          {failedRows.length > 0 && (
            <table aria-label="Rows that failed">
              <thead><tr><th scope="col">Row</th><th scope="col">Reason</th></tr></thead>
              <tbody>
                {failedRows.map((row, i) => (
                  <tr key={i}>
                    <td>{row.row}</td>
                    <td>{row.error.message}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      )}
    </section>
  )
}
