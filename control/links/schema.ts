import { Schema } from "effect"
import { DEVICES, LinkRecord, REDIRECT_TYPES } from "../../shared/links/linkRecord.ts"
import { SLUG_PATTERN } from "../../shared/links/slug.ts"
import { EmptyOrHttpUrl, HttpUrl, Id, UtcDateTime } from "../kernel/fields.ts"
import { Tag } from "../tags/schema.ts"

/** Slugs: letters, digits, `-` and `_`, case-sensitive, 1 to 190 characters (docs/decisions.md#identifiers-and-slugs). */
export const Slug = Schema.String.check(
  Schema.makeFilter((s: string) => SLUG_PATTERN.test(s) || "Expected 1 to 190 letters, digits, '-' or '_'", {
    expected: "1 to 190 letters, digits, '-' or '_'"
  })
)

export { DEVICES, REDIRECT_TYPES }
export const RedirectType = Schema.Literals(REDIRECT_TYPES)

const UtmValue = Schema.String.check(Schema.isMaxLength(500))
/** Input: an empty value removes that parameter from the link's set. */
export const UtmInput = Schema.Struct({
  source: Schema.optionalKey(UtmValue),
  medium: Schema.optionalKey(UtmValue),
  campaign: Schema.optionalKey(UtmValue),
  term: Schema.optionalKey(UtmValue),
  content: Schema.optionalKey(UtmValue),
  ref: Schema.optionalKey(UtmValue)
})

export const Country = Schema.String.check(
  Schema.makeFilter((s: string) => /^[A-Za-z]{2}$/.test(s) || "Expected a 2-letter country code (ISO 3166-1 alpha-2)", {
    expected: "a 2-letter country code (ISO 3166-1 alpha-2)"
  })
)
/** The input forms of a link's rules: what a stored rule is (shared/links/linkRecord.ts), checked. */
export const GeoRuleInput = Schema.Struct({ country: Country, url: HttpUrl })
export const DeviceRuleInput = Schema.Struct({ device: Schema.Literals(DEVICES), url: HttpUrl })

const uniqueBy = <T>(key: (item: T) => string, what: string) =>
  Schema.makeFilter((items: ReadonlyArray<T>) => {
    const seen = new Set<string>()
    const issues: Array<{ path: ReadonlyArray<PropertyKey>; issue: string }> = []
    items.forEach((item, i) => {
      const k = key(item)
      if (seen.has(k)) issues.push({ path: [i], issue: `Duplicate ${what} ${JSON.stringify(k)}` })
      seen.add(k)
    })
    return issues
  })

export const GeoRules = Schema.Array(GeoRuleInput).check(
  Schema.isMaxLength(250),
  uniqueBy((r: { country: string }) => r.country.toUpperCase(), "country")
)
export const DeviceRules = Schema.Array(DeviceRuleInput).check(uniqueBy((r: { device: string }) => r.device, "device"))

export const AbVariantInput = Schema.Struct({
  url: HttpUrl,
  weight: Schema.Int.check(Schema.isBetween({ minimum: 10, maximum: 100 }))
})
export const AbTestInput = Schema.Struct({
  variants: Schema.Array(AbVariantInput).check(Schema.isMinLength(2), Schema.isMaxLength(5)),
  endsAt: Schema.NullOr(UtcDateTime)
})


/** Fields accepted by both create and update (all optional here; create makes `url` required). */
const inputFields = {
  slug: Schema.optionalKey(Slug),
  title: Schema.optionalKey(Schema.NullOr(Schema.String.check(Schema.isMaxCodePoints(200)))),
  description: Schema.optionalKey(Schema.NullOr(Schema.String.check(Schema.isMaxCodePoints(500)))),
  ogImageUrl: Schema.optionalKey(Schema.NullOr(EmptyOrHttpUrl)),
  folderId: Schema.optionalKey(Schema.NullOr(Id)),
  tagIds: Schema.optionalKey(Schema.Array(Id).check(Schema.isMaxLength(100))),
  redirectType: Schema.optionalKey(RedirectType),
  passQuery: Schema.optionalKey(Schema.Boolean),
  openInApp: Schema.optionalKey(Schema.Boolean),
  openInBrowser: Schema.optionalKey(Schema.Boolean),
  utm: Schema.optionalKey(Schema.NullOr(UtmInput)),
  geoRules: Schema.optionalKey(GeoRules),
  deviceRules: Schema.optionalKey(DeviceRules),
  expiresAt: Schema.optionalKey(Schema.NullOr(UtcDateTime)),
  expiredUrl: Schema.optionalKey(Schema.NullOr(HttpUrl)),
  abTest: Schema.optionalKey(Schema.NullOr(AbTestInput)),
  password: Schema.optionalKey(Schema.NullOr(Schema.String.check(Schema.isMaxCodePoints(128))))
}

export const LinkCreate = Schema.Struct({
  url: HttpUrl,
  domain: Schema.optionalKey(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(253))),
  ...inputFields
}).annotate({ identifier: "LinkCreate" })
export type LinkCreate = typeof LinkCreate.Type

export const LinkUpdate = Schema.Struct({
  url: Schema.optionalKey(HttpUrl),
  ...inputFields
}).annotate({ identifier: "LinkUpdate" })
export type LinkUpdate = typeof LinkUpdate.Type

const stored = LinkRecord.fields

/**
 * The Link resource exactly as the spec lists it: every field always present, nothing more, in
 * the spec's order. What the link does is the engine's record's (shared/links/linkRecord.ts);
 * the rest is the API's view of it.
 */
export const Link = Schema.Struct({
  id: stored.id,
  domain: stored.host,
  slug: stored.slug,
  shortLink: Schema.String,
  url: stored.url,
  title: stored.title,
  description: stored.description,
  ogImageUrl: stored.ogImageUrl,
  folderId: Schema.NullOr(Schema.String),
  tags: Schema.Array(Tag.mapFields(({ id, name, color }) => ({ id, name, color }))),
  redirectType: stored.redirectType,
  passQuery: stored.passQuery,
  openInApp: stored.openInApp,
  openInBrowser: stored.openInBrowser,
  utm: stored.utm,
  geoRules: stored.geoRules,
  deviceRules: stored.deviceRules,
  expiresAt: stored.expiresAt,
  expiredUrl: stored.expiredUrl,
  abTest: stored.abTest,
  hasPassword: Schema.Boolean,
  createdAt: Schema.String,
  updatedAt: stored.updatedAt
}).annotate({ identifier: "Link" })
export type Link = typeof Link.Type

export const LinkPage = Schema.Struct({
  data: Schema.Array(Link),
  nextCursor: Schema.NullOr(Schema.String)
}).annotate({ identifier: "LinkPage" })

const CommaList = Schema.Union([Schema.String, Schema.Array(Schema.String)])

export const ListLinksQuery = Schema.Struct({
  domain: Schema.optionalKey(Schema.String),
  folderId: Schema.optionalKey(Schema.String),
  tagIds: Schema.optionalKey(CommaList),
  search: Schema.optionalKey(Schema.String.check(Schema.isMaxCodePoints(100))),
  limit: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100 }))),
  cursor: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(500)))
})

export const LinkInfoQuery = Schema.Struct({
  domain: Schema.String.check(Schema.isMinLength(1)),
  slug: Schema.String.check(Schema.isMinLength(1))
})
