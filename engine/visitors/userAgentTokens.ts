/**
 * A User-Agent read the way HTTP defines it (RFC 9110 §10.1.5): product tokens `Name/version`
 * (or a bare `Name`) separated by spaces, and comments in parentheses. Real strings bend the
 * grammar (in-app browsers append `[FBAN/...;...]` groups, some leave a parenthesis open, some
 * glue a token to a comment), so this reader never fails: whatever it cannot place ends up in
 * the nearest product or comment entry.
 *
 * The classifier needs the distinction because a platform or device is named inside a comment
 * (`(Linux; Android 14; Cubot X30 Build/UP1A)`), while software announces itself as a product
 * (`Googlebot/2.1`), either at the top level or as a product-shaped comment entry
 * (`(compatible; Googlebot/2.1; +http://...)`).
 */
export interface Product {
  /** The part before the first `/` (the whole token when there is none). */
  readonly name: string
  readonly version: string
}

export interface UserAgentParts {
  /** Top-level tokens, in order. */
  readonly products: readonly Product[]
  /** The entries of every comment and bracketed group, split at `;` and `,`, trimmed, in order. */
  readonly commentEntries: readonly (readonly string[])[]
}

const CLOSER: Readonly<Record<string, string>> = { "(": ")", "[": "]" }
const TRAILING_PUNCTUATION = /[;,.]+$/
const ENTRY_SEPARATOR = /[;,()[\]]/

const productOf = (token: string): Product | undefined => {
  const text = token.replace(TRAILING_PUNCTUATION, "")
  if (text.length === 0) return undefined
  const slash = text.indexOf("/")
  return slash < 0 ? { name: text, version: "" } : { name: text.slice(0, slash), version: text.slice(slash + 1) }
}

/** Reads a User-Agent into its top-level products and its comments' entries. Linear in its length. */
export const readUserAgent = (userAgent: string): UserAgentParts => {
  const products: Product[] = []
  const commentEntries: string[][] = []
  let i = 0
  const n = userAgent.length
  while (i < n) {
    const c = userAgent[i]
    if (c === " " || c === "\t") {
      i++
      continue
    }
    const closer = CLOSER[c]
    if (closer !== undefined) {
      // Nested groups stay inside the comment they open in; an unclosed one runs to the end.
      let depth = 0
      let j = i
      for (; j < n; j++) {
        const d = userAgent[j]
        if (d === c) depth++
        else if (d === closer && --depth === 0) break
      }
      const body = userAgent.slice(i + 1, Math.min(j, n))
      commentEntries.push(
        body
          .split(ENTRY_SEPARATOR)
          .map((entry) => entry.trim())
          .filter((entry) => entry.length > 0)
      )
      i = j + 1
      continue
    }
    let j = i
    while (j < n && userAgent[j] !== " " && userAgent[j] !== "\t" && CLOSER[userAgent[j]] === undefined) j++
    const product = productOf(userAgent.slice(i, j))
    if (product !== undefined) products.push(product)
    i = j
  }
  return { products, commentEntries }
}

/** `Name/version` with no space: how software, not a device or platform, names itself in a comment. */
const PRODUCT_SHAPED = /^[A-Za-z][\w.+!-]*\/\S+$/

/** A piece of a User-Agent that may name its software: `name`, and `text` as written (`name/version`). */
export interface SoftwareToken {
  readonly name: string
  readonly text: string
}

/** What the parser found the device to be; its names are never software names. */
export interface DeviceNames {
  readonly model: string | undefined
  readonly vendor: string | undefined
}

/** Android puts the locale, the model and its build after its version: "Android 14; en-us; Cubot X30 Build/UP1A". */
const ANDROID_VERSION = /^(?:Linux; ?)?(?:Android|Adr)[ /]?\d/i
const BUILD = /\bBuild\//i

/**
 * Every piece of a User-Agent that may name its software, leaving out the device's names:
 * top-level products, and the entries of comments (`compatible; Bytespider`, `Safari/537.4
 * (StatusCake)`, `(X11; Linux x86_64; Rigor)`). Left out as device names: anything containing
 * the model or equal to the vendor the parser found (however it is written: `SAMSUNG-GT-S5250/1.0`,
 * a feature phone's leading `Nokia6300/2.0`), an entry with a `Build/` tag, and the plain entries
 * after Android's version in its comment (the locale and the model: a device is not written
 * `Name/version`, so `Storebot-Google/1.0` there still counts).
 */
export const softwareTokens = (parts: UserAgentParts, device: DeviceNames): SoftwareToken[] => {
  const model = device.model !== undefined && device.model.length >= 2 ? device.model.toLowerCase() : undefined
  const vendor = device.vendor?.toLowerCase()
  const isDevice = (text: string) => {
    const lower = text.toLowerCase()
    return (model !== undefined && lower.includes(model)) || lower === vendor
  }
  const tokens: SoftwareToken[] = []
  for (const { name, version } of parts.products) {
    if (!isDevice(name)) tokens.push({ name, text: version === "" ? name : `${name}/${version}` })
  }
  for (const entries of parts.commentEntries) {
    let afterAndroid = false
    for (const entry of entries) {
      if (isDevice(entry) || BUILD.test(entry)) continue
      if (ANDROID_VERSION.test(entry)) {
        afterAndroid = true
        continue
      }
      if (PRODUCT_SHAPED.test(entry)) tokens.push({ name: entry.slice(0, entry.indexOf("/")), text: entry })
      else if (!afterAndroid) tokens.push({ name: entry, text: entry })
    }
  }
  return tokens
}
