import type { Link, LinkCreate, LinkUpdate } from "../../../control/links/schema.ts"
import type { FieldIssue } from "../api/failure.ts"

/** The editor's state: what the inputs hold, as text. */
export interface LinkForm {
  /** The destination; an A/B test's first variant is always this. */
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

/** What the form sends, or the fields the form itself can tell are wrong (a weight that is no number). */
export type FormPayload =
  | { readonly ok: true; readonly create: LinkCreate; readonly update: LinkUpdate }
  | { readonly ok: false; readonly issues: ReadonlyArray<FieldIssue> }

/**
 * What the form sends: every field, empty ones as their empty value (allowed on every plan), so
 * an edit is exactly what the form shows. An A/B test's first variant is the destination itself
 * (the API's rule), so the form never asks for it.
 */
export const payloadOf = (form: LinkForm): FormPayload => {
  const issues: Array<FieldIssue> = []
  const url = form.url.trim()
  const variants = form.variants.map((v, i) => {
    const weight = Number(v.weight)
    if (v.weight.trim() === "" || !Number.isInteger(weight)) {
      issues.push({ path: ["abTest", "variants", i, "weight"], message: "Enter a whole number from 10 to 100", code: "invalid_type" })
    }
    return { url: i === 0 ? url : v.url.trim(), weight }
  })
  if (issues.length > 0 && form.abEnabled) return { ok: false, issues }
  const update: LinkUpdate = {
    url,
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
    abTest: form.abEnabled ? { variants, endsAt: fromLocalInput(form.abEndsAt) } : null,
    ...(form.slug.trim() !== "" ? { slug: form.slug.trim() } : {}),
    ...(form.passwordMode === "set" ? { password: form.password } : form.passwordMode === "none" ? { password: null } : {})
  }
  return { ok: true, update, create: { ...update, url, ...(form.domain !== "" ? { domain: form.domain } : {}) } }
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
