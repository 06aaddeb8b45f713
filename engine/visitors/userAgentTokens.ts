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

/**
 * A piece of a User-Agent that may name its software: `name`, `text` as written (`name/version`),
 * and whether it stands where a platform or device is named (a plain entry of the first comment,
 * or after Android's version), where only a bot's own name counts, never a word inside a name.
 */
export interface SoftwareToken {
  readonly name: string
  readonly text: string
  readonly inPlatform: boolean
}

/** What the parser found the device to be; its names are never software names. */
export interface DeviceNames {
  readonly model: string | undefined
  readonly vendor: string | undefined
}

/** Android puts the locale, the model and its build after its version: "Android 14; en-us; Cubot X30 Build/UP1A". */
const ANDROID_VERSION = /^(?:Android|Adr) ?\d+(?:\.\d+)*(?: \w+)?$/i
const BUILD = /\bBuild\//i

/**
 * Every piece of a User-Agent that may name its software, and where it stands. Software names
 * itself as a top-level product, as a product-shaped comment entry (`compatible; Googlebot/2.1`),
 * as the entry after `compatible` (`compatible; Bytespider`), or in a comment of its own after the
 * platform's (`Safari/537.4 (StatusCake)`). The first comment names the platform and device
 * (`X11; Ubuntu; Linux x86_64`, `Linux; Android 14; Cubot X30`, `Mobile; ALCATEL 4056W`), so
 * its plain entries are marked `inPlatform`, as are those after Android's version. Left out as
 * device names: an entry with a `Build/` tag, and what contains the model or equals the vendor
 * the parser found, where a device can stand: a plain entry, a product-shaped entry of the first
 * comment (`SAMSUNG-GT-S5250/1.0`), a leading product (a feature phone's `Nokia6300/2.0`).
 */
export const softwareTokens = (parts: UserAgentParts, device: DeviceNames): SoftwareToken[] => {
  const model = device.model !== undefined && device.model.length >= 3 ? device.model.toLowerCase() : undefined
  const vendor = device.vendor?.toLowerCase()
  const namesDevice = (text: string) => {
    const lower = text.toLowerCase()
    return (model !== undefined && lower.includes(model)) || lower === vendor
  }
  const tokens: SoftwareToken[] = []
  parts.products.forEach(({ name, version }, index) => {
    // Only a leading product can be the handset ("Nokia6300/2.0 (05.00) Profile/MIDP-2.0"); a
    // later one is software even if the parser read a model into it.
    if (index > 0 || !namesDevice(name)) tokens.push({ name, text: version === "" ? name : `${name}/${version}`, inPlatform: false })
  })
  parts.commentEntries.forEach((entries, index) => {
    let inPlatform = index === 0
    for (let k = 0; k < entries.length; k++) {
      const entry = entries[k]
      if (BUILD.test(entry)) continue
      if (ANDROID_VERSION.test(entry)) {
        inPlatform = true
        continue
      }
      if (PRODUCT_SHAPED.test(entry)) {
        // A device written as a product stands in the platform's comment ("SAMSUNG-GT-S5250/1.0").
        if (!(index === 0 && namesDevice(entry))) tokens.push({ name: entry.slice(0, entry.indexOf("/")), text: entry, inPlatform: false })
      } else if (k > 0 && entries[k - 1].toLowerCase() === "compatible") tokens.push({ name: entry, text: entry, inPlatform: false })
      else if (!namesDevice(entry)) tokens.push({ name: entry, text: entry, inPlatform })
    }
  })
  return tokens
}
