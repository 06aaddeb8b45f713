import { DEVICES } from "../../../../control/links/schema.ts"
import { Field, FieldIssues, PlanNote } from "../../ui/controls.tsx"
import type { SectionProps } from "./section.ts"

/** Visitors of a country go elsewhere. */
export const GeoSection = ({ form, set, failure, gate }: SectionProps & { gate: string | undefined }) => (
  <fieldset id="geo" disabled={gate !== undefined}>
    <legend>Geo rules</legend>
    <PlanNote reason={gate} />
    {form.geoRules.length === 0 && <p className="hint">Everyone goes to the destination. Add a rule to send a country elsewhere.</p>}
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
    <FieldIssues id="geo-issues" failure={failure} field="geoRules" exact />
    <button type="button" className="small" onClick={() => set("geoRules", [...form.geoRules, { country: "", url: "" }])}>Add geo rule</button>
  </fieldset>
)

/** Visitors on a device go elsewhere. */
export const DeviceSection = ({ form, set, failure, gate }: SectionProps & { gate: string | undefined }) => (
  <fieldset id="devices" disabled={gate !== undefined}>
    <legend>Device rules</legend>
    <PlanNote reason={gate} />
    {form.deviceRules.length === 0 && <p className="hint">Every device goes to the destination. Add a rule to send iOS, Android or desktop elsewhere.</p>}
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
    <FieldIssues id="device-issues" failure={failure} field="deviceRules" exact />
    <button type="button" className="small" onClick={() => set("deviceRules", [...form.deviceRules, { device: "ios", url: "" }])}>Add device rule</button>
  </fieldset>
)
