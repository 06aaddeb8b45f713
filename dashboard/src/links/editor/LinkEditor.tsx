import { useEffect, useState } from "react"
import type { Link } from "../../../../control/links/schema.ts"
import { call } from "../../api/client.ts"
import { type ApiFailure, failed, type Outcome } from "../../api/failure.ts"
import { useAsync } from "../../api/useApi.ts"
import { useSignedIn } from "../../session/SessionContext.tsx"
import { CopyButton, ErrorNote, Skeleton } from "../../ui/controls.tsx"
import { Link as AppLink, navigate, useLeaveWarning } from "../../ui/router.tsx"
import { usePageTitle } from "../../ui/usePageTitle.ts"
import { emptyForm, formOf, type LinkForm, payloadOf } from "../linkForm.ts"
import { linkGates } from "../planGate.ts"
import { AbTestSection } from "./AbTestSection.tsx"
import { ExpirySection, PasswordSection } from "./AccessSections.tsx"
import { DestinationSection } from "./DestinationSection.tsx"
import { RedirectSection } from "./RedirectSection.tsx"
import { DeviceSection, GeoSection } from "./RulesSections.tsx"
import { SocialSection } from "./SocialSection.tsx"
import { UtmSection } from "./UtmSection.tsx"

const SECTIONS: ReadonlyArray<[string, string]> = [
  ["destination", "Destination"], ["redirect", "Redirect"], ["geo", "Geo"], ["devices", "Devices"], ["ab-test", "A/B test"],
  ["expiry", "Expiry"], ["password", "Password"], ["utm", "UTM"], ["social", "Social and QR"]
]

/** Every field the API takes, checked beside its field; the rest of a failure in the save bar. */
const FIELDS = [
  "url", "domain", "slug", "folderId", "tagIds", "redirectType", "geoRules", "deviceRules", "abTest", "expiresAt",
  "expiredUrl", "password", "utm", "title", "description", "ogImageUrl"
]

/** Create (id undefined) or edit a link, section by section, saved from a bar that stays in view. */
export const LinkEditor = ({ id }: { id: string | undefined }) => {
  const { session } = useSignedIn()
  const loaded = useAsync(
    (signal): Promise<Outcome<Link | undefined>> => (id === undefined ? Promise.resolve({ ok: true, value: undefined }) : call((c) => c.links.get({ params: { id } }), { signal })),
    [id]
  )
  const [link, setLink] = useState<Link>()
  const [form, setForm] = useState<LinkForm>(emptyForm)
  const [baseline, setBaseline] = useState<LinkForm>(emptyForm)
  const [failure, setFailure] = useState<ApiFailure>()
  const [saved, setSaved] = useState(false)
  const [busy, setBusy] = useState(false)
  usePageTitle(id === undefined ? "New link" : link ? `Edit ${link.domain}/${link.slug}` : "Edit link")

  useEffect(() => {
    if (loaded.data === undefined) return
    setLink(loaded.data)
    setForm(formOf(loaded.data))
    setBaseline(formOf(loaded.data))
  }, [loaded.data])

  const dirty = JSON.stringify(form) !== JSON.stringify(baseline)
  useLeaveWarning(dirty ? "Leave this link without saving your changes?" : undefined)

  const set = <K extends keyof LinkForm>(key: K, value: LinkForm[K]) => {
    setSaved(false)
    setForm((f) => ({ ...f, [key]: value }))
  }
  const gates = linkGates(session)

  const submit = async () => {
    const payload = payloadOf(form)
    if (!payload.ok) return setFailure(failed(422, "unprocessable_entity", "Some fields need attention", payload.issues))
    setBusy(true)
    setFailure(undefined)
    const outcome = id === undefined
      ? await call((c) => c.links.create({ payload: payload.create }))
      : await call((c) => c.links.update({ params: { id }, payload: payload.update }))
    setBusy(false)
    if (!outcome.ok) return setFailure(outcome.failure)
    setLink(outcome.value)
    setForm(formOf(outcome.value))
    setBaseline(formOf(outcome.value))
    setSaved(true)
    if (id === undefined) navigate(`/links/${encodeURIComponent(outcome.value.id)}/edit`, { replace: true, force: true })
  }

  if (id !== undefined && loaded.failure) return <ErrorNote failure={loaded.failure} retry={loaded.reload} />
  if (id !== undefined && link === undefined) return <Skeleton label="Loading the link…" lines={8} />
  const props = { form, set, failure }
  return (
    <section aria-labelledby="editor-title" className="editor">
      <div className="page-head">
        <h1 id="editor-title">{id === undefined ? "New link" : "Edit link"}</h1>
        {link && (
          <p className="short-link">
            <a href={link.shortLink}>{link.shortLink}</a> <CopyButton text={link.shortLink} />{" "}
            <AppLink to={`/links/${encodeURIComponent(link.id)}`}>Analytics and QR code</AppLink>
          </p>
        )}
      </div>
      <nav aria-label="Sections of the link" className="section-nav">
        <ul>{SECTIONS.map(([anchor, label]) => <li key={anchor}><a href={`#${anchor}`}>{label}</a></li>)}</ul>
      </nav>
      <form noValidate aria-labelledby="editor-title" onSubmit={(e) => {
        e.preventDefault()
        submit()
      }}>
        <DestinationSection {...props} existing={id !== undefined} />
        <RedirectSection {...props} gates={gates} />
        <GeoSection {...props} gate={gates.geo} />
        <DeviceSection {...props} gate={gates.device} />
        <AbTestSection {...props} gate={gates.ab} />
        <ExpirySection {...props} gate={gates.expiry} />
        <PasswordSection {...props} gate={gates.password} hasPassword={link?.hasPassword ?? false} />
        <UtmSection {...props} />
        <SocialSection {...props} link={link} />
        <div className="save-bar" role="region" aria-label="Save">
          <ErrorNote failure={failure} fields={FIELDS} />
          {saved && !dirty && <p role="status" className="ok-note">Saved.</p>}
          {dirty && <span className="hint">Unsaved changes</span>}
          <div className="actions">
            <button type="submit" disabled={busy}>{id === undefined ? "Create link" : "Save changes"}</button>
            {dirty && link && <button type="button" className="small" onClick={() => setForm(baseline)}>Discard changes</button>}
            {link && (
              <button type="button" className="danger" onClick={async () => {
                if (!window.confirm(`Delete ${link.shortLink}? It stops working at once.`)) return
                const outcome = await call((c) => c.links.delete({ params: { id: link.id } }))
                if (!outcome.ok) return setFailure(outcome.failure)
                navigate("/links", { force: true })
              }}>Delete link</button>
            )}
          </div>
        </div>
      </form>
    </section>
  )
}
