import { useWorkspaceLists } from "../../workspace/WorkspaceLists.tsx"
import { Field, FieldIssues } from "../../ui/controls.tsx"
import { TagPicker } from "../TagPicker.tsx"
import type { SectionProps } from "./section.ts"

/** Where the link goes, its address (domain and slug, fixed once created), folder and tags. */
export const DestinationSection = ({ form, set, failure, existing }: SectionProps & { existing: boolean }) => {
  const { domains, folders } = useWorkspaceLists()
  return (
    <fieldset id="destination">
      <legend>Destination</legend>
      <Field label="Destination URL" field="url" failure={failure}>
        {(p) => <input {...p} type="url" inputMode="url" required value={form.url} onChange={(e) => set("url", e.target.value)} placeholder="https://…" />}
      </Field>
      <div className="row">
        <Field label="Domain" field="domain" failure={failure} hint={existing ? "A link keeps its domain" : undefined}>
          {(p) => (
            <select {...p} value={form.domain} disabled={existing} onChange={(e) => set("domain", e.target.value)}>
              <option value="">Primary domain</option>
              {(domains.data ?? []).filter((d) => d.status === "verified" || d.kind === "subdomain" || d.host === form.domain)
                .map((d) => <option key={d.id} value={d.host}>{d.host}</option>)}
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
              {(folders.data ?? []).map((f) => <option key={f.id} value={f.id}>{f.name}</option>)}
            </select>
          )}
        </Field>
        <TagPicker label="Tags" value={form.tagIds} onChange={(tagIds) => set("tagIds", tagIds)} invalid={failure?.issues.some((i) => i.path[0] === "tagIds")} describedBy="tag-issues" />
      </div>
      <FieldIssues id="tag-issues" failure={failure} field="tagIds" />
    </fieldset>
  )
}
