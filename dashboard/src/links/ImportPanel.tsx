import { parse } from "csv-parse/browser/esm/sync"
import { useEffect, useId, useRef, useState } from "react"
import type { ApiFailure } from "../api/failure.ts"
import { bulk, type ImportJob } from "../api/workspaceCalls.ts"
import { download, ErrorNote } from "../ui/controls.tsx"

// A job cancelled through the API (DELETE /v1/links/import/{id}) is over too.
const FINISHED = new Set(["done", "cancelled"])

/** The file's rows as the person sent it (row 1 the header), to show what a failed row held. */
const rowsOf = async (file: File): Promise<Array<Array<string>>> => {
  try {
    return parse(await file.text(), { relax_column_count: true, skip_empty_lines: true, bom: true }) as Array<Array<string>>
  } catch {
    return []
  }
}

const csvCell = (value: string) => (/[",\n\r]/.test(value) || /^[=+\-@\t\r]/.test(value) ? `"${(/^[=+\-@\t\r]/.test(value) ? "'" : "") + value.replace(/"/g, '""')}"` : value)

/** Uploads a CSV as an import job, shows its progress, then the rows that failed: what they held and why, to download and fix. */
export const ImportPanel = ({ onDone }: { onDone: () => void }) => {
  const fileId = useId()
  const [file, setFile] = useState<File>()
  const [rows, setRows] = useState<Array<Array<string>>>([])
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
  const header = rows[0] ?? []
  const contentOf = (row: number) => rows[row - 1] ?? []
  const failedCsv = () => {
    const lines = [[...header, "error"], ...failedRows.map((f) => [...contentOf(f.row), f.error.message])]
    return new Blob([lines.map((l) => l.map(csvCell).join(",")).join("\r\n") + "\r\n"], { type: "text/csv" })
  }
  return (
    <section className="panel" aria-labelledby={`${fileId}-title`}>
      <h2 id={`${fileId}-title`}>Import links from CSV</h2>
      <form onSubmit={async (e) => {
        e.preventDefault()
        if (!file) return
        setFailure(undefined)
        setRows(await rowsOf(file))
        const outcome = await bulk.importCsv(file)
        if (!outcome.ok) return setFailure(outcome.failure)
        setJob(outcome.value)
        poll(outcome.value.id)
      }}>
        <div className="field">
          <label htmlFor={fileId}>CSV file</label>
          <input id={fileId} type="file" accept=".csv,text/csv" aria-describedby={`${fileId}-hint`} onChange={(e) => setFile(e.target.files?.[0])} />
          <small id={`${fileId}-hint`} className="hint">Our own export, or Bitly, Dub or Shlink exports. Links whose slug exists already are skipped.</small>
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
            <>
              <button type="button" onClick={() => download(failedCsv(), "failed-rows.csv")}>Download the failed rows as CSV</button>
              <div className="table-wrap">
                <table aria-label="Rows that failed">
                  <thead><tr><th scope="col">Row</th><th scope="col">Content</th><th scope="col">Reason</th></tr></thead>
                  <tbody>
                    {failedRows.map((row, i) => (
                      <tr key={i}>
                        <td>{row.row}</td>
                        <td className="row-content">{contentOf(row.row).join(", ")}</td>
                        <td>{row.error.message}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </>
          )}
        </div>
      )}
    </section>
  )
}
