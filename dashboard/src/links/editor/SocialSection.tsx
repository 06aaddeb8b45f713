import type { Link } from "../../../../control/links/schema.ts"
import { Field } from "../../ui/controls.tsx"
import { OgCard } from "../OgCard.tsx"
import { QrPanel } from "../QrPanel.tsx"
import type { SectionProps } from "./section.ts"

/** How the link unfurls in a chat or a feed, with its QR code beside the preview. */
export const SocialSection = ({ form, set, failure, link }: SectionProps & { link: Link | undefined }) => (
  <fieldset id="social">
    <legend>Social card and QR code</legend>
    <Field label="Title" field="title" failure={failure}>
      {(p) => <input {...p} value={form.title} maxLength={200} onChange={(e) => set("title", e.target.value)} />}
    </Field>
    <Field label="Description" field="description" failure={failure}>
      {(p) => <textarea {...p} value={form.description} maxLength={500} rows={3} onChange={(e) => set("description", e.target.value)} />}
    </Field>
    <Field label="Image URL" field="ogImageUrl" failure={failure}>
      {(p) => <input {...p} type="url" value={form.ogImageUrl} onChange={(e) => set("ogImageUrl", e.target.value)} />}
    </Field>
    <div className="previews">
      <OgCard title={form.title} description={form.description} imageUrl={form.ogImageUrl} destination={form.url} />
      {link ? <QrPanel link={link} /> : <p className="hint qr-later">The QR code appears here once the link is created.</p>}
    </div>
  </fieldset>
)
