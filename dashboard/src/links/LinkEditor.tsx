import { useEffect, useState } from "react"
import type { Domain } from "../../../control/domains/schema.ts"
import type { Folder } from "../../../control/folders/schema.ts"
import { DEVICES, type Link, REDIRECT_TYPES } from "../../../control/links/schema.ts"
import type { Tag } from "../../../control/tags/schema.ts"
import { call } from "../api/client.ts"
import type { ApiFailure } from "../api/failure.ts"
import { useSignedIn } from "../session/SessionContext.tsx"
import { linkFieldGate } from "./planGate.ts"
import { CopyButton, ErrorNote, Field, FieldIssues, PlanNote } from "../ui/controls.tsx"
import { navigate } from "../ui/router.tsx"
import { emptyForm, formOf, type LinkForm, payloadOf, UTM_KEYS, withUtm } from "./linkForm.ts"
import { OgCard } from "./OgCard.tsx"
import { QrPanel } from "./QrPanel.tsx"

const SAMPLE_URL = "https://example.com/"

/** Create (id undefined) or edit a link, with every field of the spec. */
export const LinkEditor = ({ id }: { id: string | undefined }) => {
  const { session } = useSignedIn()
  const [form, setForm] = useState<LinkForm>(emptyForm)
  const [link, setLink] = useState<Link>()
  const [failure, setFailure] = useState<ApiFailure>()
  const [saved, setSaved] = useState(false)
  const [busy, setBusy] = useState(false)
  const [domains, setDomains] = useState<ReadonlyArray<Domain>>([])
  const [folders, setFolders] = useState<ReadonlyArray<Folder>>([])
  const [tags, setTags] = useState<ReadonlyArray<Tag>>([])

  useEffect(() => {
    call((c) => c.domains.list()).then((o) => o.ok && setDomains(o.value.data))
    call((c) => c.folders.list()).then((o) => o.ok && setFolders(o.value.data))
    call((c) => c.tags.list()).then((o) => o.ok && setTags(o.value.data))
    if (id !== undefined) {
      call((c) => c.links.get({ params: { id } })).then((o) => {
        if (!o.ok) return setFailure(o.failure)
        setLink(o.value)
        setForm(formOf(o.value))
      })
    }
  }, [id])

  const set = <K extends keyof LinkForm>(key: K, value: LinkForm[K]) => {
    setSaved(false)
    setForm((f) => ({ ...f, [key]: value }))
  }
  // The same rule the API applies, asked with a sample value of each gated field.
  const gate = {
    geo: linkFieldGate(session, { geoRules: [{ country: "US", url: SAMPLE_URL }] }),
    device: linkFieldGate(session, { deviceRules: [{ device: "ios", url: SAMPLE_URL }] }),
    expiry: linkFieldGate(session, { expiresAt: "2030-01-01T00:00:00Z" }),
    password: linkFieldGate(session, { password: "x" }),
    openInApp: linkFieldGate(session, { openInApp: true }),
    openInBrowser: linkFieldGate(session, { openInBrowser: true }),
    ab: linkFieldGate(session, { abTest: { variants: [{ url: SAMPLE_URL, weight: 50 }, { url: SAMPLE_URL, weight: 50 }], endsAt: null } })
  }

  const submit = async () => {
    setBusy(true)
    setFailure(undefined)
    const payload = payloadOf(form)
    const outcome = id === undefined
      ? await call((c) => c.links.create({ payload: payload as never }))
      : await call((c) => c.links.update({ params: { id }, payload: (({ domain: _domain, ...rest }) => rest)(payload) as never }))
    setBusy(false)
    if (!outcome.ok) return setFailure(outcome.failure)
    setLink(outcome.value)
    setForm(formOf(outcome.value))
    setSaved(true)
    if (id === undefined) navigate(`/links/${encodeURIComponent(outcome.value.id)}`)
  }

  const weightTotal = form.variants.reduce((sum, v) => sum + (Number(v.weight) || 0), 0)
  return (
    <section aria-labelledby="editor-title" className="editor">
      <div className="page-head">
        <h1 id="editor-title">{id === undefined ? "New link" : "Edit link"}</h1>
        {link && <p className="short-link"><a href={link.shortLink}>{link.shortLink}</a> <CopyButton text={link.shortLink} /></p>}
      </div>
      <form noValidate onSubmit={(e) => {
        e.preventDefault()
        submit()
      }}>
        <fieldset>
          <legend>Destination</legend>
          <Field label="Destination URL" field="url" failure={failure}>
            {(p) => <input {...p} type="url" inputMode="url" required value={form.url} onChange={(e) => set("url", e.target.value)} placeholder="https://…" />}
          </Field>
          <div className="row">
            <Field label="Domain" field="domain" failure={failure}>
              {(p) => (
                <select {...p} value={form.domain} disabled={id !== undefined} onChange={(e) => set("domain", e.target.value)}>
                  <option value="">Primary domain</option>
                  {domains.filter((d) => d.status === "verified" || d.kind === "subdomain").map((d) => <option key={d.id} value={d.host}>{d.host}</option>)}
                </select>
              )}
            </Field>
            <Field label="Slug" field="slug" failure={failure} hint="Letters, digits, - and _; left empty, one is made up">
              {(p) => <input {...p} value={form.slug} onChange={(e) => set("slug", e.target.value)} />}
            </Field>
          </div>
          <div className="row">
            <Field label="Folder" field="folderId" failure={failure}>
              {(p) => (
                <select {...p} value={form.folderId} onChange={(e) => set("folderId", e.target.value)}>
                  <option value="">No folder</option>
                  {folders.map((f) => <option key={f.id} value={f.id}>{f.name}</option>)}
                </select>
              )}
            </Field>
            <Field label="Tags" field="tagIds" failure={failure}>
              {(p) => (
                <select {...p} multiple size={Math.min(4, Math.max(2, tags.length))} value={form.tagIds}
                  onChange={(e) => set("tagIds", [...e.target.selectedOptions].map((o) => o.value))}>
                  {tags.map((t) => <option key={t.id} value={t.id}>{t.name}</option>)}
                </select>
              )}
            </Field>
          </div>
        </fieldset>

        <fieldset>
          <legend>Redirect</legend>
          <div className="row">
            <Field label="Redirect type" field="redirectType" failure={failure}>
              {(p) => (
                <select {...p} value={form.redirectType} onChange={(e) => set("redirectType", Number(e.target.value) as LinkForm["redirectType"])}>
                  {REDIRECT_TYPES.map((t) => <option key={t} value={t}>{t}{t === 301 || t === 308 ? " (permanent)" : " (temporary)"}</option>)}
                </select>
              )}
            </Field>
          </div>
          <label className="check"><input type="checkbox" checked={form.passQuery} onChange={(e) => set("passQuery", e.target.checked)} /> Forward the visitor's query string</label>
          <label className="check"><input type="checkbox" checked={form.openInApp} disabled={gate.openInApp !== undefined} onChange={(e) => set("openInApp", e.target.checked)} /> Open in the app (deep link) <PlanNote reason={gate.openInApp} /></label>
          <label className="check"><input type="checkbox" checked={form.openInBrowser} disabled={gate.openInBrowser !== undefined} onChange={(e) => set("openInBrowser", e.target.checked)} /> Open in the system browser from in-app browsers <PlanNote reason={gate.openInBrowser} /></label>
        </fieldset>

        <fieldset disabled={gate.geo !== undefined}>
          <legend>Geo rules</legend>
          <PlanNote reason={gate.geo} />
          {form.geoRules.map((rule, i) => (
            <div className="row rule" key={i}>
              <Field label={`Country ${i + 1}`} field={`geoRules.${i}.country`} failure={failure} hint="2 letters, e.g. DE">
                {(p) => <input {...p} value={rule.country} maxLength={2} size={3} onChange={(e) => set("geoRules", form.geoRules.map((r, n) => (n === i ? { ...r, country: e.target.value } : r)))} />}
              </Field>
              <Field label={`URL for country ${i + 1}`} field={`geoRules.${i}.url`} failure={failure}>
                {(p) => <input {...p} type="url" value={rule.url} onChange={(e) => set("geoRules", form.geoRules.map((r, n) => (n === i ? { ...r, url: e.target.value } : r)))} />}
              </Field>
              <button type="button" className="small" onClick={() => set("geoRules", form.geoRules.filter((_, n) => n !== i))} aria-label={`Remove geo rule ${i + 1}`}>Remove</button>
            </div>
          ))}
          <FieldIssues id="geo-issues" failure={failure} field="geoRules" />
          <button type="button" className="small" onClick={() => set("geoRules", [...form.geoRules, { country: "", url: "" }])}>Add geo rule</button>
        </fieldset>

        <fieldset disabled={gate.device !== undefined}>
          <legend>Device rules</legend>
          <PlanNote reason={gate.device} />
          {form.deviceRules.map((rule, i) => (
            <div className="row rule" key={i}>
              <Field label={`Device ${i + 1}`} field={`deviceRules.${i}.device`} failure={failure}>
                {(p) => (
                  <select {...p} value={rule.device} onChange={(e) => set("deviceRules", form.deviceRules.map((r, n) => (n === i ? { ...r, device: e.target.value as typeof rule.device } : r)))}>
                    {DEVICES.map((d) => <option key={d} value={d}>{d}</option>)}
                  </select>
                )}
              </Field>
              <Field label={`URL for device ${i + 1}`} field={`deviceRules.${i}.url`} failure={failure}>
                {(p) => <input {...p} type="url" value={rule.url} onChange={(e) => set("deviceRules", form.deviceRules.map((r, n) => (n === i ? { ...r, url: e.target.value } : r)))} />}
              </Field>
              <button type="button" className="small" onClick={() => set("deviceRules", form.deviceRules.filter((_, n) => n !== i))} aria-label={`Remove device rule ${i + 1}`}>Remove</button>
            </div>
          ))}
          <FieldIssues id="device-issues" failure={failure} field="deviceRules" />
          <button type="button" className="small" onClick={() => set("deviceRules", [...form.deviceRules, { device: "ios", url: "" }])}>Add device rule</button>
        </fieldset>

        <fieldset>
          <legend>A/B test</legend>
          <label className="check">
            <input type="checkbox" checked={form.abEnabled} disabled={gate.ab !== undefined} onChange={(e) => set("abEnabled", e.target.checked)} aria-describedby={gate.ab ? "ab-gate" : undefined} />
            Split visitors between variants
          </label>
          {gate.ab && <small id="ab-gate" className="plan-note">{gate.ab}</small>}
          {form.abEnabled && (
            <>
              {form.variants.map((variant, i) => (
                <div className="row rule" key={i}>
                  <Field label={`Variant ${i + 1} URL`} field={`abTest.variants.${i}.url`} failure={failure}>
                    {(p) => <input {...p} type="url" value={variant.url} onChange={(e) => set("variants", form.variants.map((v, n) => (n === i ? { ...v, url: e.target.value } : v)))} />}
                  </Field>
                  <Field label={`Variant ${i + 1} weight`} field={`abTest.variants.${i}.weight`} failure={failure} hint="10 to 100">
                    {(p) => <input {...p} type="number" min={10} max={100} value={variant.weight} onChange={(e) => set("variants", form.variants.map((v, n) => (n === i ? { ...v, weight: e.target.value } : v)))} />}
                  </Field>
                  {form.variants.length > 2 && <button type="button" className="small" onClick={() => set("variants", form.variants.filter((_, n) => n !== i))} aria-label={`Remove variant ${i + 1}`}>Remove</button>}
                </div>
              ))}
              <FieldIssues id="ab-issues" failure={failure} field="abTest.variants" />
              <p className="hint">Weights add up to {weightTotal}; each variant gets its share of that total.</p>
              {form.variants.length < 5 && <button type="button" className="small" onClick={() => set("variants", [...form.variants, { url: "", weight: "50" }])}>Add variant</button>}
              <Field label="Test ends at (your local time)" field="abTest.endsAt" failure={failure} hint="Afterwards everyone goes to the destination URL">
                {(p) => <input {...p} type="datetime-local" value={form.abEndsAt} onChange={(e) => set("abEndsAt", e.target.value)} />}
              </Field>
            </>
          )}
        </fieldset>

        <fieldset disabled={gate.expiry !== undefined}>
          <legend>Expiry</legend>
          <PlanNote reason={gate.expiry} />
          <div className="row">
            <Field label="Expires at (your local time)" field="expiresAt" failure={failure}>
              {(p) => <input {...p} type="datetime-local" value={form.expiresAt} onChange={(e) => set("expiresAt", e.target.value)} />}
            </Field>
            <Field label="After expiry, send visitors to" field="expiredUrl" failure={failure}>
              {(p) => <input {...p} type="url" value={form.expiredUrl} onChange={(e) => set("expiredUrl", e.target.value)} />}
            </Field>
          </div>
        </fieldset>

        <fieldset disabled={gate.password !== undefined}>
          <legend>Password</legend>
          <PlanNote reason={gate.password} />
          {link?.hasPassword && (
            <label className="check"><input type="radio" name="pw" checked={form.passwordMode === "keep"} onChange={() => set("passwordMode", "keep")} /> Keep the current password</label>
          )}
          <label className="check"><input type="radio" name="pw" checked={form.passwordMode === "none"} onChange={() => set("passwordMode", "none")} /> No password</label>
          <label className="check"><input type="radio" name="pw" checked={form.passwordMode === "set"} onChange={() => set("passwordMode", "set")} /> {link?.hasPassword ? "Set a new password" : "Ask visitors for a password"}</label>
          {form.passwordMode === "set" && (
            <Field label="Password" field="password" failure={failure}>
              {(p) => <input {...p} type="password" autoComplete="new-password" value={form.password} onChange={(e) => set("password", e.target.value)} />}
            </Field>
          )}
        </fieldset>

        <fieldset>
          <legend>UTM parameters</legend>
          <div className="grid-3">
            {UTM_KEYS.map((key) => (
              <Field key={key} label={key === "ref" ? "ref" : `utm_${key}`} field={`utm.${key}`} failure={failure}>
                {(p) => <input {...p} value={form.utm[key]} onChange={(e) => set("utm", { ...form.utm, [key]: e.target.value })} />}
              </Field>
            ))}
          </div>
          <p className="hint">Visitors land on: <code data-testid="utm-preview">{withUtm(form.url || "https://example.com/", form.utm)}</code></p>
        </fieldset>

        <fieldset>
          <legend>Social card (Open Graph)</legend>
          <Field label="Title" field="title" failure={failure}>
            {(p) => <input {...p} value={form.title} maxLength={200} onChange={(e) => set("title", e.target.value)} />}
          </Field>
          <Field label="Description" field="description" failure={failure}>
            {(p) => <textarea {...p} value={form.description} maxLength={500} rows={3} onChange={(e) => set("description", e.target.value)} />}
          </Field>
          <Field label="Image URL" field="ogImageUrl" failure={failure}>
            {(p) => <input {...p} type="url" value={form.ogImageUrl} onChange={(e) => set("ogImageUrl", e.target.value)} />}
          </Field>
          <OgCard title={form.title} description={form.description} imageUrl={form.ogImageUrl} destination={form.url} />
        </fieldset>

        <ErrorNote failure={failure} fields={[
          "url", "domain", "slug", "folderId", "tagIds", "redirectType", "geoRules", "deviceRules", "abTest", "expiresAt",
          "expiredUrl", "password", "utm", "title", "description", "ogImageUrl"
        ]} />
        {saved && <p role="status" className="ok-note">Saved.</p>}
        <div className="actions">
          <button type="submit" disabled={busy}>{id === undefined ? "Create link" : "Save changes"}</button>
          {link && (
            <button type="button" className="danger" onClick={async () => {
              if (!window.confirm(`Delete ${link.shortLink}? It stops working at once.`)) return
              const outcome = await call((c) => c.links.delete({ params: { id: link.id } }))
              if (outcome.ok) navigate("/links")
              else setFailure(outcome.failure)
            }}>Delete link</button>
          )}
        </div>
      </form>
      {link && <QrPanel link={link} />}
    </section>
  )
}
