import { Field } from "../../ui/controls.tsx"
import { UTM_KEYS, withUtm } from "../linkForm.ts"
import type { SectionProps } from "./section.ts"

/** UTM parameters added to the destination, and the address visitors land on. */
export const UtmSection = ({ form, set, failure }: SectionProps) => (
  <fieldset id="utm">
    <legend>UTM parameters</legend>
    <div className="grid-3">
      {UTM_KEYS.map((key) => (
        <Field key={key} label={key === "ref" ? "ref" : `utm_${key}`} field={`utm.${key}`} failure={failure}>
          {(p) => <input {...p} value={form.utm[key]} onChange={(e) => set("utm", { ...form.utm, [key]: e.target.value })} />}
        </Field>
      ))}
    </div>
    <p className="hint utm-preview">Visitors land on: <code data-testid="utm-preview">{withUtm(form.url || "https://example.com/", form.utm)}</code></p>
  </fieldset>
)
