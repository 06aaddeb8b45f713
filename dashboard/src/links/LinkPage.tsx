import { AnalyticsView } from "../analytics/AnalyticsView.tsx"
import { paramsOf, setParams } from "../analytics/query.ts"
import { useApi } from "../api/useApi.ts"
import { CopyButton, ErrorNote, formatDate, Skeleton } from "../ui/controls.tsx"
import { Link, useLocation } from "../ui/router.tsx"
import { usePageTitle } from "../ui/usePageTitle.ts"
import { QrPanel } from "./QrPanel.tsx"

/** One link: where it goes, its QR code, its analytics (the same view and filters as the workspace's), its settings. */
export const LinkPage = ({ id }: { id: string }) => {
  const link = useApi((c) => c.links.get({ params: { id } }), [id])
  const params = paramsOf(useLocation())
  usePageTitle(link.data ? `${link.data.domain}/${link.data.slug}` : "Link")
  if (link.failure) return <ErrorNote failure={link.failure} retry={link.reload} />
  if (link.data === undefined) return <Skeleton label="Loading the link…" lines={6} />
  const l = link.data
  return (
    <section aria-labelledby="link-title" className="link-page">
      <div className="page-head">
        <h1 id="link-title">{l.domain}/{l.slug}</h1>
        <div className="actions">
          <CopyButton text={l.shortLink} label="Copy short link" />
          <Link to={`/links/${encodeURIComponent(l.id)}/edit`} className="button">Edit settings</Link>
        </div>
      </div>
      <div className="link-summary">
        <div className="panel">
          <p className="dest">Goes to <a href={l.url}>{l.url}</a></p>
          {l.title && <p>{l.title}</p>}
          <p className="hint">Created {formatDate(l.createdAt)} · redirect {l.redirectType}{l.hasPassword ? " · password" : ""}{l.expiresAt ? ` · expires ${formatDate(l.expiresAt)}` : ""}</p>
          {l.tags.length > 0 && <p>{l.tags.map((t) => <span key={t.id} className={`tag ${t.color ?? ""}`}>{t.name}</span>)}</p>}
        </div>
        <QrPanel link={l} />
      </div>
      <h2>Analytics</h2>
      <AnalyticsView params={params} onChange={setParams} linkId={l.id} />
    </section>
  )
}
