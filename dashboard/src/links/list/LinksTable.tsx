import type { Link as LinkRow } from "../../../../control/links/schema.ts"
import { CopyButton, formatCount, formatDate } from "../../ui/controls.tsx"
import { Link } from "../../ui/router.tsx"
import type { LinkClicks } from "./useLinkClicks.ts"

interface Props {
  readonly links: ReadonlyArray<LinkRow>
  readonly clicks: LinkClicks
  readonly selected: ReadonlySet<string>
  readonly onSelect: (selected: ReadonlySet<string>) => void
}

const ClickCount = ({ count }: { count: number | null | undefined }) => {
  // A span without a role may not carry aria-label (axe: aria-prohibited-attr): the words go in
  // hidden text beside what is drawn.
  if (count === undefined) return <><span className="skeleton-inline" aria-hidden="true" /><span className="visually-hidden">Clicks loading</span></>
  if (count === null) return <><span title="The click count could not be read" aria-hidden="true">—</span><span className="visually-hidden">Clicks unknown</span></>
  return <>{formatCount(count)}</>
}

/** The links with their clicks; on a phone, the destination moves under the short link. */
export const LinksTable = ({ links, clicks, selected, onSelect }: Props) => {
  const toggle = (id: string) => {
    const next = new Set(selected)
    if (next.has(id)) next.delete(id)
    else next.add(id)
    onSelect(next)
  }
  return (
    <div className="table-wrap">
      <table className="links">
        <caption className="visually-hidden">Links, newest first</caption>
        <thead>
          <tr>
            <th scope="col">
              <input type="checkbox" aria-label="Select all links shown"
                checked={links.length > 0 && selected.size === links.length}
                onChange={(e) => onSelect(e.target.checked ? new Set(links.map((l) => l.id)) : new Set())} />
            </th>
            <th scope="col">Short link</th>
            <th scope="col" className="wide-only">Destination</th>
            <th scope="col" className="wide-only">Tags</th>
            <th scope="col" className="num">Clicks</th>
            <th scope="col" className="wide-only">Created</th>
          </tr>
        </thead>
        <tbody>
          {links.map((link) => (
            <tr key={link.id} data-link-id={link.id}>
              <td><input type="checkbox" aria-label={`Select ${link.shortLink}`} checked={selected.has(link.id)} onChange={() => toggle(link.id)} /></td>
              <td className="short">
                <Link to={`/links/${encodeURIComponent(link.id)}`}>{link.domain}/{link.slug}</Link>
                <CopyButton text={link.shortLink} />
                {link.hasPassword && <span className="badge">password</span>}
                <span className="dest-inline" title={link.url}>{link.title ?? link.url}</span>
              </td>
              <td className="dest wide-only" title={link.url}>{link.title ? <><strong>{link.title}</strong><br /></> : null}{link.url}</td>
              <td className="wide-only">{link.tags.map((t) => <span key={t.id} className={`tag ${t.color ?? ""}`}>{t.name}</span>)}</td>
              <td className="num" data-testid="link-clicks"><ClickCount count={clicks.of(link.id)} /></td>
              <td className="wide-only">{formatDate(link.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
