import { Field, PlanNote } from "../../ui/controls.tsx"
import type { SectionProps } from "./section.ts"

/** Until when the link works, and where it sends visitors afterwards. */
export const ExpirySection = ({ form, set, failure, gate }: SectionProps & { gate: string | undefined }) => (
  <fieldset id="expiry" disabled={gate !== undefined}>
    <legend>Expiry</legend>
    <PlanNote reason={gate} />
    <div className="row">
      <Field label="Expires at (your local time)" field="expiresAt" failure={failure}>
        {(p) => <input {...p} type="datetime-local" value={form.expiresAt} onChange={(e) => set("expiresAt", e.target.value)} />}
      </Field>
      <Field label="After expiry, send visitors to" field="expiredUrl" failure={failure}>
        {(p) => <input {...p} type="url" value={form.expiredUrl} onChange={(e) => set("expiredUrl", e.target.value)} />}
      </Field>
    </div>
  </fieldset>
)

/** A password visitors type before they are sent on. */
export const PasswordSection = ({ form, set, failure, gate, hasPassword }: SectionProps & { gate: string | undefined; hasPassword: boolean }) => (
  <fieldset id="password" disabled={gate !== undefined}>
    <legend>Password</legend>
    <PlanNote reason={gate} />
    {hasPassword && (
      <label className="check"><input type="radio" name="pw" checked={form.passwordMode === "keep"} onChange={() => set("passwordMode", "keep")} /> Keep the current password</label>
    )}
    <label className="check"><input type="radio" name="pw" checked={form.passwordMode === "none"} onChange={() => set("passwordMode", "none")} /> No password</label>
    <label className="check"><input type="radio" name="pw" checked={form.passwordMode === "set"} onChange={() => set("passwordMode", "set")} /> {hasPassword ? "Set a new password" : "Ask visitors for a password"}</label>
    {form.passwordMode === "set" && (
      <Field label="Password" field="password" failure={failure}>
        {(p) => <input {...p} type="password" autoComplete="new-password" value={form.password} onChange={(e) => set("password", e.target.value)} />}
      </Field>
    )}
  </fieldset>
)
