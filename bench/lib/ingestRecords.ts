import type { DuckDBConnection } from "@duckdb/node-api"
import { xxh64 } from "@node-rs/xxhash"
import { stat } from "node:fs/promises"
import type { ClickRecord, DeviceClass, RawClick } from "../../shared/clicks/click.ts"
import { listClickFiles } from "../../shared/clicks/files.ts"
import { quote } from "../../shared/clicks/parquet.ts"

/**
 * Synthetic clicks for the ingest benchmark: a deterministic pool of varied records (links,
 * countries, devices, referers, UTM values, ~10% agents) that batches are cut from, so the
 * producer spends little CPU of its own and the sink sees realistic, compressible-but-not-trivial
 * data.
 */

/** A small deterministic PRNG (mulberry32), so every run writes the same data. */
export const prng = (seed: number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const pick = <T>(random: () => number, items: ReadonlyArray<readonly [T, number]>): T => {
  let r = random() * items.reduce((sum, [, w]) => sum + w, 0)
  for (const [item, weight] of items) if ((r -= weight) < 0) return item
  return items[items.length - 1][0]
}

const id = (random: () => number, prefix: string) => {
  const chars = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
  let out = `${prefix}_`
  for (let i = 0; i < 20; i++) out += chars[Math.floor(random() * 62)]
  return out
}

const COUNTRIES: ReadonlyArray<readonly [string, number]> = [
  ["US", 30], ["DE", 9], ["GB", 8], ["FR", 6], ["IN", 6], ["BR", 5], ["CA", 4], ["JP", 4], ["NL", 3], ["ES", 3],
  ["IT", 3], ["AU", 3], ["PL", 2], ["SE", 2], ["MX", 2], ["KR", 2], ["CH", 1], ["AT", 1], ["BE", 1], ["NG", 1]
]
const DEVICES: ReadonlyArray<readonly [{ device: DeviceClass; browser: string; os: string }, number]> = [
  [{ device: "mobile", browser: "Mobile Safari", os: "iOS" }, 28],
  [{ device: "mobile", browser: "Chrome", os: "Android" }, 25],
  [{ device: "desktop", browser: "Chrome", os: "Windows" }, 22],
  [{ device: "desktop", browser: "Safari", os: "macOS" }, 8],
  [{ device: "desktop", browser: "Firefox", os: "Windows" }, 5],
  [{ device: "desktop", browser: "Edge", os: "Windows" }, 5],
  [{ device: "tablet", browser: "Mobile Safari", os: "iOS" }, 4],
  [{ device: "tv", browser: "Unknown", os: "Unknown" }, 1],
  [{ device: "other", browser: "Unknown", os: "Unknown" }, 2]
]
const REFERERS: ReadonlyArray<readonly [string | null, number]> = [
  [null, 40], ["t.co", 12], ["www.google.com", 10], ["www.facebook.com", 8], ["l.instagram.com", 6], ["www.linkedin.com", 6],
  ["news.ycombinator.com", 3], ["www.reddit.com", 4], ["mail.google.com", 3], ["chatgpt.com", 3], ["duckduckgo.com", 2], ["www.bing.com", 3]
]
const UTM_SOURCES: ReadonlyArray<readonly [string | null, number]> = [
  [null, 50], ["newsletter", 15], ["twitter", 10], ["facebook", 8], ["linkedin", 7], ["google", 6], ["partner", 4]
]
const UTM_MEDIUMS = ["email", "social", "cpc", "referral"]
const CAMPAIGNS = ["spring-sale", "launch", "black-friday", "webinar", "onboarding", "retargeting", "brand"]
const REGIONS: Record<string, ReadonlyArray<readonly [string, string]>> = {
  US: [["CA", "San Francisco"], ["NY", "New York"], ["TX", "Austin"], ["WA", "Seattle"]],
  DE: [["BE", "Berlin"], ["BY", "Munich"], ["HH", "Hamburg"]],
  GB: [["ENG", "London"], ["ENG", "Manchester"], ["SCT", "Edinburgh"]]
}

export interface SyntheticLink {
  readonly workspaceId: string
  readonly linkId: string
  readonly domain: string
  readonly slug: string
  readonly url: string
}

export const syntheticLinks = (count: number, seed = 1): Array<SyntheticLink> => {
  const random = prng(seed)
  const workspaces = Array.from({ length: 5 }, () => id(random, "ws"))
  return Array.from({ length: count }, (_, i) => {
    const workspace = i % 10 < 7 ? 0 : (i % 4) + 1
    const utm = random() < 0.5
    const source = pick(random, UTM_SOURCES) ?? "newsletter"
    return {
      workspaceId: workspaces[workspace],
      linkId: id(random, "lnk"),
      domain: workspace === 0 ? "go.acme.example" : `ws${workspace}.ricochet.example`,
      slug: id(random, "s").slice(2, 9),
      url: `https://www.example${i % 97}.com/landing/${i}${utm ? `?utm_source=${source}&utm_medium=${UTM_MEDIUMS[i % 4]}&utm_campaign=${CAMPAIGNS[i % 7]}` : ""}`
    }
  })
}

/** A pool of distinct derived click records; batches are cut from it with fresh timestamps. */
export const clickRecordPool = (size: number, links: ReadonlyArray<SyntheticLink>, seed = 2): Array<ClickRecord> => {
  const random = prng(seed)
  return Array.from({ length: size }, (): ClickRecord => {
    // Zipf-ish popularity: a few links get most clicks.
    const link = links[Math.min(links.length - 1, Math.floor(links.length * random() ** 3))]
    const country = pick(random, COUNTRIES)
    const place = REGIONS[country]?.[Math.floor(random() * REGIONS[country].length)]
    const agent = random() < 0.1
    const device = agent ? { device: "other" as const, browser: "ChatGPT-User", os: "Unknown" } : pick(random, DEVICES)
    const params = new URL(link.url).searchParams
    return {
      timestamp: 0,
      workspaceId: link.workspaceId,
      linkId: link.linkId,
      domain: link.domain,
      slug: link.slug,
      url: link.url,
      audience: agent ? "agent" : "people",
      country,
      region: place?.[0] ?? null,
      city: place?.[1] ?? null,
      ...device,
      refererHost: agent ? null : pick(random, REFERERS),
      utmSource: params.get("utm_source"),
      utmMedium: params.get("utm_medium"),
      utmCampaign: params.get("utm_campaign"),
      utmTerm: null,
      utmContent: null,
      abVariant: random() < 0.05 ? Math.floor(random() * 2) : null,
      visitorHash: ""
    }
  })
}

/**
 * `count` clicks cut from the pool, stamped `timestamp` and given unique visitor hashes derived
 * from their sequence number (so a count of distinct hashes in the Parquet files proves every
 * acknowledged click arrived exactly once).
 */
export const cutBatch = (pool: ReadonlyArray<ClickRecord>, firstSeq: number, count: number, timestamp: number): Array<ClickRecord> => {
  const batch = new Array<ClickRecord>(count)
  for (let i = 0; i < count; i++) {
    const seq = firstSeq + i
    batch[i] = { ...pool[seq % pool.length], timestamp, visitorHash: xxh64(String(seq)).toString(16) }
  }
  return batch
}

const UAS: ReadonlyArray<readonly [(v: number) => string, number]> = [
  [(v) => `Mozilla/5.0 (iPhone; CPU iPhone OS 17_${v % 7} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.${v % 7} Mobile/15E148 Safari/604.1`, 28],
  [(v) => `Mozilla/5.0 (Linux; Android 14; Pixel ${6 + (v % 4)}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${118 + (v % 14)}.0.0.0 Mobile Safari/537.36`, 25],
  [(v) => `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${118 + (v % 14)}.0.0.0 Safari/537.36`, 22],
  [(v) => `Mozilla/5.0 (Macintosh; Intel Mac OS X 14_${v % 6}) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.${v % 5} Safari/605.1.15`, 8],
  [(v) => `Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:${120 + (v % 8)}.0) Gecko/20100101 Firefox/${120 + (v % 8)}.0`, 5],
  [(v) => `Mozilla/5.0 (iPad; CPU OS 17_${v % 5} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.${v % 5} Mobile/15E148 Safari/604.1`, 4],
  [() => "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot", 6],
  [() => "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)", 4],
  [() => "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", 2]
]

/** Raw clicks as the hot path captures them (for the ClickCollector path: derive + sink). */
export const rawClickPool = (size: number, links: ReadonlyArray<SyntheticLink>, seed = 3): Array<RawClick> => {
  const random = prng(seed)
  return Array.from({ length: size }, (): RawClick => {
    const link = links[Math.min(links.length - 1, Math.floor(links.length * random() ** 3))]
    const referer = pick(random, REFERERS)
    return {
      timestamp: 0,
      workspaceId: link.workspaceId,
      linkId: link.linkId,
      domain: link.domain,
      slug: link.slug,
      url: link.url,
      variant: null,
      ip: `${1 + Math.floor(random() * 222)}.${Math.floor(random() * 256)}.${Math.floor(random() * 256)}.${1 + Math.floor(random() * 254)}`,
      userAgent: pick(random, UAS)(Math.floor(random() * 1000)),
      referer: referer === null ? "" : `https://${referer}/`,
      geoHeader: "",
      signatureAgent: ""
    }
  })
}

/** Click files under a clicks directory as DuckDB reads them: files, rows, distinct visitors, bytes. */
export const countParquet = async (duck: DuckDBConnection, clicksDir: string) => {
  const files = await listClickFiles(clicksDir, 0, Date.now() + 86_400_000)
  if (files.length === 0) return { files: 0, rows: 0, distinct: 0, bytes: 0 }
  const reader = await duck.runAndReadAll(
    `SELECT count(*)::BIGINT AS n, count(DISTINCT visitor_hash)::BIGINT AS d FROM read_parquet([${files.map(quote).join(", ")}])`
  )
  const [n, d] = reader.getRows()[0] as [bigint, bigint]
  let bytes = 0
  for (const file of files) bytes += (await stat(file)).size
  return { files: files.length, rows: Number(n), distinct: Number(d), bytes }
}
