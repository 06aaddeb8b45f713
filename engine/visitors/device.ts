import type { DeviceClass } from "../../shared/clicks/click.ts"
import { UAParser } from "ua-parser-js"
import { BoundedMemo } from "./boundedMemo.ts"

export type { DeviceClass }

/** What link device rules (`ios`, `android`, `desktop`) match on; `other` matches no rule. */
export type Platform = "ios" | "android" | "desktop" | "other"

export interface DeviceInfo {
  readonly device: DeviceClass
  readonly browser: string
  readonly os: string
  readonly platform: Platform
  /** The app whose embedded browser this is (e.g. "Instagram"), or null in a real browser. */
  readonly inAppBrowser: string | null
}

export const UNKNOWN = "Unknown"

/**
 * Social and messaging apps that open links in their own WebView. Android users there are
 * handed to their default browser with an `intent://` URL when a link asks for
 * `openInBrowser`. Order matters: Messenger before Facebook (both carry FBAN/FBAV). The bare
 * ByteDance WebView marker counts as TikTok for builds that omit the app token (it would also
 * match ByteDance's Chinese apps, which are rare outside China). Case-sensitive so that short
 * tokens such as `Line/` cannot match other products' lower-case tokens; KakaoTalk is the
 * exception, matched without case as ua-parser-js does.
 */
const IN_APP_BROWSERS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bFBAN\/MessengerForiOS|\bFB_IAB\/Orca-Android/, "Messenger"],
  [/\bFBAN\/|\bFBAV\/|\bFB_IAB\//, "Facebook"],
  [/\bInstagram \d/, "Instagram"],
  // Threads' internal code name; its in-app UA carries no "Threads" token.
  [/\bBarcelona \d/, "Threads"],
  [/\bmusical_ly|\btrill_|\bAppName\/(?:musical_ly|trill|ultralite)\b|\bBytedanceWebview\//, "TikTok"],
  [/\bTwitterAndroid\b|\bTwitter for iP(?:hone|ad)\b/, "Twitter"],
  [/\[LinkedInApp\]/, "LinkedIn"],
  [/Snapchat/, "Snapchat"],
  [/\bMicroMessenger\//, "WeChat"],
  [/\bLine\/\d/, "Line"],
  [/\bKAKAOTALK\b/i, "KakaoTalk"],
  [/\bNAVER\(inapp/, "Naver"],
  [/\bZalo\b/, "Zalo"],
  [/\[Pinterest\/|\bPinterest\/(?:Android|iOS)\b/, "Pinterest"],
  [/\bReddit\/Version\b/, "Reddit"]
]

/**
 * ua-parser-js 1.0.41 reports Samsung (Tizen) and LG (webOS) TVs as `mobile` and the Steam
 * Deck as a plain Linux desktop. These markers are checked before its device type.
 */
const TV_MARKERS = /SMART-?TV|\bWeb0S\b|webOS\.TV|NetCast|HbbTV|\bAndroid ?TV\b|\bGoogleTV\b|\bCrKey\//i
const CONSOLE_MARKERS = /Steam Deck/

/**
 * Browser names ua-parser-js 1.0.41 misses: on TVs and consoles it falls back to the engine
 * or to "Chrome"/"Safari", and it knows the Google app only on iOS ("GSA").
 */
const BROWSER_OVERRIDES: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bGoogleApp\//, "Google App"],
  [/\bSamsung Browser\//, "Samsung Internet"],
  [/\bLG Browser\//, "LG Browser"],
  [/\bNintendoBrowser\//, "Nintendo Browser"]
]

/**
 * ua-parser-js browser and OS names mapped to the stable names the analytics show, keyed in
 * lower case because some of its names are copied with the UA's own casing ("KAIOS").
 * Decisions:
 * - "Mobile Safari" is Safari: the device breakdown already separates phones from Macs.
 * - Embedded views are "WebView" whether Android's ("Chrome WebView") or an unknown iOS
 *   app's (ua-parser says "WebKit"); the OS breakdown tells them apart.
 * - Any Linux distribution is "Linux": only some browsers name the distribution (Firefox on
 *   Ubuntu says "Ubuntu", Chrome on the same machine does not), so keeping it would split one
 *   OS by browser.
 * Names without an entry are kept as ua-parser-js gives them.
 */
const BROWSER_NAMES: Readonly<Record<string, string>> = {
  "mobile safari": "Safari",
  "chrome webview": "WebView",
  gsa: "Google App",
  ucbrowser: "UC Browser",
  yandex: "Yandex Browser",
  ie: "Internet Explorer",
  iemobile: "IE Mobile",
  qqbrowser: "QQ Browser",
  qqbrowserlite: "QQ Browser",
  kakaotalk: "KakaoTalk",
  naver: "Naver",
  line: "Line",
  twitter: "Twitter",
  linkedin: "LinkedIn",
  instagram: "Instagram",
  snapchat: "Snapchat",
  facebook: "Facebook",
  wechat: "WeChat",
  tiktok: "TikTok"
}

const OS_NAMES: Readonly<Record<string, string>> = {
  "mac os": "macOS",
  ios: "iOS",
  android: "Android",
  windows: "Windows",
  "chromium os": "Chrome OS",
  harmonyos: "HarmonyOS",
  openharmony: "OpenHarmony",
  kaios: "KaiOS",
  "windows phone": "Windows Phone",
  "windows phone os": "Windows Phone",
  "windows mobile": "Windows Phone",
  tizen: "Tizen",
  webos: "webOS",
  playstation: "PlayStation",
  xbox: "Xbox",
  nintendo: "Nintendo",
  blackberry: "BlackBerry",
  chromecast: "Chromecast",
  watchos: "watchOS",
  fuchsia: "Fuchsia"
}

const LINUX_DISTRIBUTION =
  /^(?:linux|[kxl]?ubuntu|debian|suse|opensuse|gentoo|arch|slackware|fedora|mandriva|centos|pclinuxos|red ?hat|zenwalk|linpus|raspbian|deepin|manjaro|elementary os|sabayon|linspire|mint|mageia|vectorlinux)$/i

/** Operating systems whose untyped devices are desktops (ua-parser-js gives desktops no type). */
const DESKTOP_OS = new Set(["Windows", "macOS", "Linux", "Chrome OS"])

const normaliseOs = (name: string | undefined): string => {
  if (name === undefined || name.length === 0) return UNKNOWN
  const mapped = OS_NAMES[name.toLowerCase()]
  if (mapped !== undefined) return mapped
  if (LINUX_DISTRIBUTION.test(name)) return "Linux"
  return name
}

const normaliseBrowser = (name: string | undefined, os: string): string => {
  if (name === undefined || name.length === 0) return UNKNOWN
  const lower = name.toLowerCase()
  if (lower === "webkit" && os === "iOS") return "WebView"
  return BROWSER_NAMES[lower] ?? name
}

const deviceClass = (type: string | undefined, os: string, ua: string): DeviceClass => {
  if (TV_MARKERS.test(ua)) return "tv"
  if (CONSOLE_MARKERS.test(ua)) return "console"
  switch (type) {
    case "mobile":
      return "mobile"
    case "tablet":
      return "tablet"
    case "smarttv":
      return "tv"
    case "console":
      return "console"
    case undefined:
    case "":
      if (DESKTOP_OS.has(os)) return "desktop"
      // Untyped Android or iOS is a phone that ua-parser-js could not place
      // (Opera Mini: "Opera/9.80 (Android; Opera Mini/7.5...)").
      if (os === "Android" || os === "iOS") return "mobile"
      return "other"
    default:
      // wearable, embedded (cars), xr
      return "other"
  }
}

/**
 * Device rules are about which app store or app a phone can open, so `ios`/`android` only
 * apply to phones and tablets: a Fire TV or an Android TV runs Android but cannot take a
 * Play Store link meant for phones. HarmonyOS 2-4 runs Android apps and still sends an
 * Android token, so it counts as `android`; HarmonyOS NEXT (OpenHarmony) does not.
 */
const platformOf = (device: DeviceClass, os: string, ua: string): Platform => {
  if (device === "desktop") return "desktop"
  if (device !== "mobile" && device !== "tablet") return "other"
  if (os === "iOS") return "ios"
  if (os === "Android") return "android"
  if (os === "HarmonyOS" && ua.includes("Android")) return "android"
  return "other"
}

const inAppBrowserOf = (ua: string): string | null => {
  for (const [pattern, app] of IN_APP_BROWSERS) if (pattern.test(ua)) return app
  return null
}

const browserOverride = (ua: string): string | undefined => {
  for (const [pattern, name] of BROWSER_OVERRIDES) if (pattern.test(ua)) return name
  return undefined
}

// One parser per module instance, i.e. per worker thread: parsing is synchronous, so reusing
// it with setUA is safe and avoids building a parser per request.
const parser = new UAParser()

const UNKNOWN_DEVICE: DeviceInfo = Object.freeze({
  device: "other",
  browser: UNKNOWN,
  os: UNKNOWN,
  platform: "other",
  inAppBrowser: null
})

const parse = (ua: string): DeviceInfo => {
  parser.setUA(ua)
  // Only the three parts we use: getResult() would also run the engine and CPU regexes.
  const os = normaliseOs(parser.getOS().name)
  const device = deviceClass(parser.getDevice().type, os, ua)
  const inAppBrowser = inAppBrowserOf(ua)
  // In-app browsers are named after their app, so "Snapchat" is one browser on iOS (where
  // ua-parser-js recognises it) and on Android (where it only sees a WebView).
  const browser = inAppBrowser ?? browserOverride(ua) ?? normaliseBrowser(parser.getBrowser().name, os)
  return Object.freeze({ device, browser, os, platform: platformOf(device, os, ua), inAppBrowser })
}

const memo = new BoundedMemo<DeviceInfo>(4096)

/**
 * Device, browser, OS, device-rule platform and in-app browser of a User-Agent. Results are
 * memoised and shared between callers, hence frozen.
 */
export const parseDevice = (userAgent: string | undefined): DeviceInfo => {
  if (userAgent === undefined || userAgent.length === 0) return UNKNOWN_DEVICE
  const known = memo.get(userAgent)
  if (known !== undefined) return known
  const info = parse(userAgent)
  memo.set(userAgent, info)
  return info
}

/** For tests and benchmarks that need a cold memo. */
export const clearDeviceMemo = (): void => memo.clear()
