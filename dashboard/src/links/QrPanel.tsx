import { useEffect, useId, useState } from "react"
import type { Link } from "../../../control/links/schema.ts"
import type { ApiFailure } from "../api/failure.ts"
import { bulk } from "../api/workspaceCalls.ts"
import { download, ErrorNote } from "../ui/controls.tsx"

/** The link's QR code, drawn by the API, shown and offered as SVG or PNG. */
export const QrPanel = ({ link }: { link: Link }) => {
  const sizeId = useId()
  const [size, setSize] = useState(256)
  const [preview, setPreview] = useState<string>()
  const [failure, setFailure] = useState<ApiFailure>()
  useEffect(() => {
    let url: string | undefined
    bulk.qr(link.id, "svg", size).then((o) => {
      if (!o.ok) return setFailure(o.failure)
      setFailure(undefined)
      url = URL.createObjectURL(o.value)
      setPreview(url)
    })
    return () => {
      if (url) URL.revokeObjectURL(url)
    }
  }, [link.id, size])
  const save = async (format: "svg" | "png") => {
    const o = await bulk.qr(link.id, format, size)
    if (o.ok) download(o.value, `${link.slug}.${format}`)
    else setFailure(o.failure)
  }
  return (
    <section className="panel" aria-labelledby={`${sizeId}-qr`}>
      <h2 id={`${sizeId}-qr`}>QR code</h2>
      {preview && <img src={preview} width={160} height={160} alt={`QR code of ${link.shortLink}`} />}
      <div className="field">
        <label htmlFor={sizeId}>Size in pixels</label>
        <input id={sizeId} type="number" min={64} max={2048} step={32} value={size} onChange={(e) => setSize(Number(e.target.value) || 256)} />
      </div>
      <ErrorNote failure={failure} />
      <div className="actions">
        <button type="button" onClick={() => save("svg")}>Download SVG</button>
        <button type="button" onClick={() => save("png")}>Download PNG</button>
      </div>
    </section>
  )
}
