/** The bounds POST /v1/links/import documents: 100,000 links in at most 64 MiB. */
export const MAX_ROWS = 100_000

/** Letters and digits that compress about as well as real urls and titles do (a fixed sequence). */
const noise = (seed: number, length: number): string => {
  let x = seed * 2654435761 >>> 0
  let out = ""
  while (out.length < length) {
    x = (x * 1664525 + 1013904223) >>> 0
    out += x.toString(36)
  }
  return out.slice(0, length)
}

/**
 * A CSV of `rows` links, each line about `lineBytes` long: a chosen slug on every other row (the
 * rest get random ones), a long url, a title and a description, all valid and distinct. The
 * default is a maximum-size upload: 100,000 rows in about 63 MB, under the 64 MiB bound.
 */
export const linksCsv = (rows = MAX_ROWS, options: { readonly lineBytes?: number; readonly prefix?: string } = {}): string => {
  const prefix = options.prefix ?? "imp"
  const lineBytes = options.lineBytes ?? 630
  const lines: Array<string> = ["slug,url,title,description"]
  for (let i = 0; i < rows; i++) {
    const slug = i % 2 === 0 ? `${prefix}-${i}` : ""
    const head = `${slug},https://example.com/${prefix}/${i}?q=`
    const title = `Link ${i} ${noise(i, 140)}`
    const description = `Row ${i}: ${noise(i + 7, 190)}`
    const fill = Math.max(1, lineBytes - head.length - title.length - description.length - 3)
    lines.push(`${head}${noise(i + 3, fill)},${title},${description}`)
  }
  return `${lines.join("\n")}\n`
}
