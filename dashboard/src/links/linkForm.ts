import type { Link, LinkUpdate } from "../../../control/links/schema.ts"

/** The editor's state: what the inputs hold, as text. */
export interface LinkForm {
  url: string
  domain: string
  slug: string
  title: string
  description: string
  ogImageUrl: string
  folderId: string
  tagIds: Array<string>
  redirectType: 301 | 302 | 307 | 308
  passQuery: boolean
  openInApp: boolean
  openInBrowser: boolean
  utm: Record<UtmKey, string>
  geoRules: Array<{ country: string; url: string }>
  deviceRules: Array<{ device: "ios" | "android" | "desktop"; url: string }>
  expiresAt: string
  expiredUrl: string
  abEnabled: boolean
  variants: Array<{ url: string; weight: string }>
  abEndsAt: string
  /** "keep" leaves an existing password as it is. */
  passwordMode: "keep" | "set" | "none"
  password: string
}

export const UTM_KEYS = ["source", "medium", "campaign", "term", "content", "ref"] as const
export type UtmKey = (typeof UTM_KEYS)[number]

const emptyUtm = (): Record<UtmKey, string> => ({ source: "", medium: "", campaign: "", term: "", content: "", ref: "" })

export const emptyForm = (): LinkForm => ({
  url: "", domain: "", slug: "", title: "", description: "", ogImageUrl: "", folderId: "", tagIds: [],
  redirectType: 302, passQuery: false, openInApp: false, openInBrowser: false, utm: emptyUtm(),
  geoRules: [], deviceRules: [], expiresAt: "", expiredUrl: "", abEnabled: false,
  variants: [{ url: "", weight: "50" }, { url: "", weight: "50" }], abEndsAt: "", passwordMode: "none", password: ""
})

/** `2030-01-31T12:00:00Z` ↔ the local time a datetime-local input shows. */
export const toLocalInput = (iso: string | null): string => {
  if (!iso) return ""
  const d = new Date(iso)
  const pad = (n: number) => String(n).padStart(2, "0")
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`
}
export const fromLocalInput = (value: string): string | null =>
  value === "" ? null : new Date(value).toISOString().replace(/\.\d{3}Z$/, "Z")

export const formOf = (link: Link): LinkForm => ({
  url: link.url,
  domain: link.domain,
  slug: link.slug,
  title: link.title ?? "",
  description: link.description ?? "",
  ogImageUrl: link.ogImageUrl ?? "",
  folderId: link.folderId ?? "",
  tagIds: link.tags.map((t) => t.id),
  redirectType: link.redirectType,
  passQuery: link.passQuery,
  openInApp: link.openInApp,
  openInBrowser: link.openInBrowser,
  utm: { ...emptyUtm(), ...(link.utm ?? {}) },
  geoRules: link.geoRules.map((r) => ({ ...r })),
  deviceRules: link.deviceRules.map((r) => ({ device: r.device as "ios" | "android" | "desktop", url: r.url })),
  expiresAt: toLocalInput(link.expiresAt),
  expiredUrl: link.expiredUrl ?? "",
  abEnabled: link.abTest !== null,
  variants: link.abTest?.variants.map((v) => ({ url: v.url, weight: String(v.weight) })) ?? emptyForm().variants,
  abEndsAt: toLocalInput(link.abTest?.endsAt ?? null),
  passwordMode: link.hasPassword ? "keep" : "none",
  password: ""
})

const orNull = (s: string) => (s.trim() === "" ? null : s.trim())

/**
 * What the form sends: every field, empty ones as their empty value (allowed on every plan), so
 * an edit is exactly what the form shows. Numbers stay text when they are not numbers: the API's
 * 422 then names the field.
 */
export const payloadOf = (form: LinkForm): LinkUpdate & { domain?: string } => {
  const payload: Record<string, unknown> = {
    url: form.url.trim(),
    title: orNull(form.title),
    description: orNull(form.description),
    ogImageUrl: orNull(form.ogImageUrl),
    folderId: orNull(form.folderId),
    tagIds: form.tagIds,
    redirectType: form.redirectType,
    passQuery: form.passQuery,
    openInApp: form.openInApp,
    openInBrowser: form.openInBrowser,
    utm: UTM_KEYS.some((k) => form.utm[k].trim() !== "") ? Object.fromEntries(UTM_KEYS.map((k) => [k, form.utm[k].trim()])) : null,
    geoRules: form.geoRules.map((r) => ({ country: r.country.trim().toUpperCase(), url: r.url.trim() })),
    deviceRules: form.deviceRules.map((r) => ({ device: r.device, url: r.url.trim() })),
    expiresAt: fromLocalInput(form.expiresAt),
    expiredUrl: orNull(form.expiredUrl),
    abTest: form.abEnabled
      ? {
        variants: form.variants.map((v) => ({ url: v.url.trim(), weight: Number.isFinite(Number(v.weight)) && v.weight.trim() !== "" ? Number(v.weight) : v.weight })),
        endsAt: fromLocalInput(form.abEndsAt)
      }
      : null
  }
  if (form.slug.trim() !== "") payload.slug = form.slug.trim()
  if (form.domain !== "") payload.domain = form.domain
  if (form.passwordMode === "set") payload.password = form.password
  if (form.passwordMode === "none") payload.password = null
  return payload as LinkUpdate & { domain?: string }
}

/** The destination with the UTM parameters the link adds, as a visitor would land on it. */
export const withUtm = (url: string, utm: Record<UtmKey, string>): string => {
  try {
    const target = new URL(url)
    for (const key of UTM_KEYS) if (utm[key].trim() !== "") target.searchParams.set(key === "ref" ? "ref" : `utm_${key}`, utm[key].trim())
    return target.toString()
  } catch {
    return url
  }
}
