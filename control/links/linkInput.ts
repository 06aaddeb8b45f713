import { Result } from "effect"
import { type PlanRequired, ValidationFailed } from "../kernel/errors.ts"
import { type Plan, requirePlan } from "../kernel/plans.ts"
import type { LinkCreate, LinkUpdate } from "./schema.ts"

type LinkInput = LinkCreate | LinkUpdate

/** The spec marks these "Basic and up"; setting them to their empty value is always allowed. */
const BASIC_FIELDS = {
  openInApp: (v: unknown) => v === true,
  openInBrowser: (v: unknown) => v === true,
  geoRules: (v: unknown) => Array.isArray(v) && v.length > 0,
  deviceRules: (v: unknown) => Array.isArray(v) && v.length > 0,
  expiresAt: (v: unknown) => v !== null && v !== undefined,
  password: (v: unknown) => typeof v === "string" && v !== ""
} as const

/** plan_required for the first gated field the input uses that the plan lacks. */
export const checkLinkPlan = (plan: Plan, input: LinkInput): PlanRequired | undefined => {
  for (const [field, used] of Object.entries(BASIC_FIELDS)) {
    if (field in input && used((input as Record<string, unknown>)[field])) {
      const error = requirePlan(plan, "basic", `The link field ${field}`)
      if (error) return error
    }
  }
  if (input.abTest !== undefined && input.abTest !== null) return requirePlan(plan, "pro", "The link field abTest")
  return undefined
}

/**
 * UTM set after a create or update: keys sent with a value set it, keys sent empty remove it,
 * keys not sent stay; `null` clears the set. An empty set is stored as null.
 */
export const mergeUtm = (
  existing: Readonly<Record<string, string>> | null,
  input: Readonly<Record<string, string | undefined>> | null | undefined
): Record<string, string> | null => {
  if (input === undefined) return existing === null ? null : { ...existing }
  if (input === null) return null
  const merged: Record<string, string> = { ...(existing ?? {}) }
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue
    if (value.trim() === "") delete merged[key]
    else merged[key] = value
  }
  return Object.keys(merged).length === 0 ? null : merged
}

/** Empty strings for optional texts mean "not set". */
export const emptyToNull = (value: string | null | undefined): string | null | undefined =>
  value === "" ? null : value

export type AbTestValue = { variants: ReadonlyArray<{ url: string; weight: number }>; endsAt: string | null } | null

/**
 * `variants[0]` is the link's own url. A test sent with a different first url is refused; when only
 * the url changes, the first variant follows it.
 */
export const resolveAbTest = (
  url: string,
  existing: AbTestValue,
  input: AbTestValue | undefined
): Result.Result<AbTestValue, ValidationFailed> => {
  if (input === undefined) {
    if (existing === null) return Result.succeed(null)
    return Result.succeed({ ...existing, variants: existing.variants.map((v, i) => (i === 0 ? { ...v, url } : v)) })
  }
  if (input === null) return Result.succeed(null)
  if (input.variants[0].url !== url) {
    return Result.fail(ValidationFailed.at(["abTest", "variants", 0, "url"], "The first variant must be the link's own url", "invalid_value"))
  }
  return Result.succeed({ variants: input.variants.map((v) => ({ url: v.url, weight: v.weight })), endsAt: input.endsAt })
}

/** Countries are stored upper-case, whatever case the client sent. */
export const normalizeGeoRules = (rules: ReadonlyArray<{ country: string; url: string }>) =>
  rules.map((r) => ({ country: r.country.toUpperCase(), url: r.url }))
