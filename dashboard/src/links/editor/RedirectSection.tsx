import { REDIRECT_TYPES } from "../../../../control/links/schema.ts"
import { Field, PlanNote } from "../../ui/controls.tsx"
import type { LinkForm } from "../linkForm.ts"
import type { SectionProps } from "./section.ts"

/** How the redirect answers: its status, the query string, app links. */
export const RedirectSection = ({ form, set, failure, gates }: SectionProps & { gates: { openInApp?: string; openInBrowser?: string } }) => (
  <fieldset id="redirect">
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
    <label className="check"><input type="checkbox" checked={form.openInApp} disabled={gates.openInApp !== undefined} onChange={(e) => set("openInApp", e.target.checked)} /> Open in the app (deep link) <PlanNote reason={gates.openInApp} /></label>
    <label className="check"><input type="checkbox" checked={form.openInBrowser} disabled={gates.openInBrowser !== undefined} onChange={(e) => set("openInBrowser", e.target.checked)} /> Open in the system browser from in-app browsers <PlanNote reason={gates.openInBrowser} /></label>
  </fieldset>
)
