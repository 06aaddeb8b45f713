import { Field, FieldIssues } from "../../ui/controls.tsx"
import type { SectionProps } from "./section.ts"

/**
 * Visitors split between variants by weight. The first variant is the destination URL itself (the
 * API's rule): shown, locked, and kept in step with the destination.
 */
export const AbTestSection = ({ form, set, failure, gate }: SectionProps & { gate: string | undefined }) => {
  const weightTotal = form.variants.reduce((sum, v) => sum + (Number(v.weight) || 0), 0)
  const setVariant = (i: number, change: Partial<{ url: string; weight: string }>) =>
    set("variants", form.variants.map((v, n) => (n === i ? { ...v, ...change } : v)))
  return (
    <fieldset id="ab-test">
      <legend>A/B test</legend>
      <label className="check">
        <input type="checkbox" checked={form.abEnabled} disabled={gate !== undefined} onChange={(e) => set("abEnabled", e.target.checked)} aria-describedby={gate ? "ab-gate" : undefined} />
        Split visitors between variants
      </label>
      {gate && <small id="ab-gate" className="plan-note">{gate}</small>}
      {form.abEnabled && (
        <>
          {form.variants.map((variant, i) => (
            <div className="row rule" key={i}>
              {i === 0
                ? (
                  <Field label="Variant 1 URL" field="abTest.variants.0.url" failure={failure} hint="The destination URL: change it above">
                    {(p) => <input {...p} type="url" value={form.url} readOnly aria-readonly="true" className="locked" />}
                  </Field>
                )
                : (
                  <Field label={`Variant ${i + 1} URL`} field={`abTest.variants.${i}.url`} failure={failure}>
                    {(p) => <input {...p} type="url" value={variant.url} onChange={(e) => setVariant(i, { url: e.target.value })} />}
                  </Field>
                )}
              <Field label={`Variant ${i + 1} weight`} field={`abTest.variants.${i}.weight`} failure={failure} hint="10 to 100">
                {(p) => <input {...p} type="number" min={10} max={100} value={variant.weight} onChange={(e) => setVariant(i, { weight: e.target.value })} />}
              </Field>
              {form.variants.length > 2 && i > 0 && <button type="button" className="small" onClick={() => set("variants", form.variants.filter((_, n) => n !== i))} aria-label={`Remove variant ${i + 1}`}>Remove</button>}
            </div>
          ))}
          <FieldIssues id="ab-issues" failure={failure} field="abTest.variants" exact />
          <p className="hint">Weights add up to {weightTotal}; each variant gets its share of that total.</p>
          {form.variants.length < 5 && <button type="button" className="small" onClick={() => set("variants", [...form.variants, { url: "", weight: "50" }])}>Add variant</button>}
          <Field label="Test ends at (your local time)" field="abTest.endsAt" failure={failure} hint="Afterwards everyone goes to the destination URL">
            {(p) => <input {...p} type="datetime-local" value={form.abEndsAt} onChange={(e) => set("abEndsAt", e.target.value)} />}
          </Field>
        </>
      )}
    </fieldset>
  )
}
