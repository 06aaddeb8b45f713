import { list as ISBOT_PATTERNS } from "isbot"
import { BOT_TOKENS } from "./botFamilies.ts"
import type { SoftwareToken } from "./userAgentTokens.ts"

/**
 * Words only crawlers, monitors, renderers, feed readers and HTTP libraries put in their own
 * name. Tested against software names only, never against device or platform names, which is
 * what keeps a "Cubot" phone, an "XBot Junior" tablet or a "Discovery" model a person's.
 */
const BOT_WORD =
  /bots?(?![a-z])|bot[-_]|crawl|spider|scrap(?:e|er|ing|y)\b|fetch|slurp|archiv|index(?:er|ing)|harvest|monitor|uptime|probe|health.?check|checker|preview|headless|render(?:er|tron)?\b|screenshot|lighthouse|page.?speed|synthetic|validator|scanner|sitemap|\bfeeds?\b|feed.?(?:reader|parser)|rss|http.?client|\.(?:com|net|org|io)$/i

/**
 * isbot's patterns that also match real browsers' product tokens, so they are not asked about
 * software names (they still apply, as part of isbot, to strings no browser layer recognised):
 * - `sogou`: Sogou's mobile browser (`SogouMobileBrowser/5.6`); its spiders say "spider";
 * - `catch`: Opera TV's `OMI/4.21.4.112.Catcher4.66`; Catchpoint is in the monitor family;
 * - `java(?!;)`: feature phones' `JavaPlatform/JP-8.5`; `Java/` is in the HTTP library family;
 * - `(?<!lib)http`: products such as `ICAPoHTTPS`; an address is the contact rule's;
 * - `\|`, `\b\w+/1\.0;`: fields of TV and in-app browsers' tokens;
 * - `firephp`, `chromeframe`, `download`, `torrent`: browser extensions and plug-ins
 *   (`FireDownload/2.0.1`, `chromeframe/32.0`);
 * - the `google` pattern: `GoogleTV`, an app's `Channel/googleplay`; Google's crawlers are the
 *   crawler family;
 * - `news`: news apps' in-app browsers (`NewsArticle/` of Toutiao); feed readers are a family.
 */
export const ISBOT_PATTERNS_NOT_FOR_SOFTWARE: readonly string[] = [
  "sogou",
  "catch",
  "java(?!;)",
  "(?<!lib)http",
  "\\|",
  "\\b\\w+/1\\.0;",
  "firephp",
  "chromeframe",
  "download",
  "torrent",
  "(?<! channel/|google/)google(?!(?:wv|app|/google| pixel))",
  "(?:^|[^g])news(?!sapphire)"
]

/** isbot's patterns that describe a product's name (not the shape of a whole string: `^...`, `...$`). */
const ISBOT_SOFTWARE = new RegExp(
  ISBOT_PATTERNS.filter(
    (pattern) => !pattern.startsWith("^") && !pattern.endsWith("$") && !ISBOT_PATTERNS_NOT_FOR_SOFTWARE.includes(pattern)
  ).join("|"),
  "i"
)

const FAMILY = new RegExp(BOT_TOKENS.map((token) => `(?:${token.pattern})`).join("|"), "i")

const FAMILY_AT_START = new RegExp(`^\\+?(?:${BOT_TOKENS.map((token) => `(?:${token.pattern})`).join("|")})`, "i")

/**
 * The bot a browser-shaped User-Agent names in its software tokens, or undefined: a bot word in
 * a token's name, or one of isbot's patterns or a bot family's token in its text. Where a
 * platform or device is named, only a bot family's own name opening the entry counts
 * (`X11; Linux x86_64; Rigor`): a "Cubot" phone or an "XBot Junior" tablet is a person's.
 */
export const botSoftwareToken = (tokens: readonly SoftwareToken[]): string | undefined => {
  const software = tokens.filter((token) => !token.inPlatform)
  for (const { name, text } of software) if (BOT_WORD.test(name)) return text
  // One scan of all software tokens; a line break is in no token and none of the patterns
  // matches one, so a match never spans two tokens.
  const texts = software.map((token) => token.text)
  const listed = ISBOT_SOFTWARE.exec(texts.join("\n"))
  if (listed !== null) return texts.find((text) => text.includes(listed[0])) ?? listed[0]
  const family = FAMILY.exec(texts.join(" "))
  if (family !== null) return family[0]
  for (const token of tokens) {
    if (!token.inPlatform) continue
    const named = FAMILY_AT_START.exec(token.text)
    if (named !== null) return named[0]
  }
  return undefined
}
