import type { ClickRecord } from "../../shared/clicks/click.ts"

/** A people click on a desktop Chrome with nothing optional set; `fields` override any part. */
export const clickRecord = (fields: Partial<ClickRecord> = {}): ClickRecord => ({
  timestamp: 0,
  workspaceId: "ws_a",
  linkId: "lnk_1",
  domain: "acme.localhost",
  slug: "one",
  url: "https://example.com/landing",
  audience: "people",
  country: null,
  region: null,
  city: null,
  device: "desktop",
  browser: "Chrome",
  os: "Windows",
  refererHost: null,
  utmSource: null,
  utmMedium: null,
  utmCampaign: null,
  utmTerm: null,
  utmContent: null,
  abVariant: null,
  visitorHash: "v",
  ...fields
})
