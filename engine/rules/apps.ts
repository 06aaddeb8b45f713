/**
 * Deep links for well-known apps (`openInApp`) and the Android hand-off from in-app browsers
 * (`openInBrowser`). Android gets an `intent://` URL whose fallback is the web page, so a phone
 * without the app still lands on the destination; iOS gets the app's URL scheme where the app
 * has one for that kind of page, tried by a small page that falls back to the web URL.
 */
interface AppRule {
  readonly hosts: ReadonlyArray<string>
  readonly androidPackage: string
  readonly ios?: (url: URL) => string | undefined
}

const segments = (url: URL) => url.pathname.split("/").filter((s) => s !== "")

const APPS: ReadonlyArray<AppRule> = [
  {
    hosts: ["youtube.com", "www.youtube.com", "m.youtube.com", "youtu.be", "music.youtube.com"],
    androidPackage: "com.google.android.youtube",
    ios: (u) => `youtube://${u.host}${u.pathname}${u.search}`
  },
  {
    hosts: ["twitter.com", "www.twitter.com", "mobile.twitter.com", "x.com", "www.x.com"],
    androidPackage: "com.twitter.android",
    ios: (u) => {
      const [user, kind, id] = segments(u)
      if (kind === "status" && id !== undefined) return `twitter://status?id=${encodeURIComponent(id)}`
      if (user !== undefined && kind === undefined) return `twitter://user?screen_name=${encodeURIComponent(user)}`
      return undefined
    }
  },
  {
    hosts: ["instagram.com", "www.instagram.com"],
    androidPackage: "com.instagram.android",
    ios: (u) => {
      const parts = segments(u)
      return parts.length === 1 ? `instagram://user?username=${encodeURIComponent(parts[0])}` : undefined
    }
  },
  {
    hosts: ["open.spotify.com"],
    androidPackage: "com.spotify.music",
    ios: (u) => {
      const [kind, id] = segments(u)
      return kind !== undefined && id !== undefined ? `spotify:${kind}:${id}` : undefined
    }
  },
  {
    hosts: ["facebook.com", "www.facebook.com", "m.facebook.com", "fb.com"],
    androidPackage: "com.facebook.katana",
    ios: (u) => `fb://facewebmodal/f?href=${encodeURIComponent(u.toString())}`
  },
  {
    hosts: ["wa.me", "api.whatsapp.com"],
    androidPackage: "com.whatsapp",
    ios: (u) => {
      const [phone] = segments(u)
      return u.host === "wa.me" && phone !== undefined ? `whatsapp://send?phone=${encodeURIComponent(phone)}` : undefined
    }
  },
  {
    hosts: ["t.me", "telegram.me"],
    androidPackage: "org.telegram.messenger",
    ios: (u) => {
      const [name] = segments(u)
      return name !== undefined ? `tg://resolve?domain=${encodeURIComponent(name)}` : undefined
    }
  },
  { hosts: ["linkedin.com", "www.linkedin.com"], androidPackage: "com.linkedin.android" },
  { hosts: ["tiktok.com", "www.tiktok.com", "vm.tiktok.com"], androidPackage: "com.zhiliaoapp.musically" },
  { hosts: ["reddit.com", "www.reddit.com"], androidPackage: "com.reddit.frontpage" },
  { hosts: ["pinterest.com", "www.pinterest.com", "pin.it"], androidPackage: "com.pinterest" },
  { hosts: ["amazon.com", "www.amazon.com"], androidPackage: "com.amazon.mShop.android.shopping" }
]

const BY_HOST = new Map<string, AppRule>(APPS.flatMap((app) => app.hosts.map((host) => [host, app] as const)))

const intentUrl = (url: URL, androidPackage?: string): string =>
  `intent://${url.host}${url.pathname}${url.search}#Intent;scheme=${url.protocol.slice(0, -1)};` +
  `${androidPackage ? `package=${androidPackage};` : "action=android.intent.action.VIEW;"}` +
  `S.browser_fallback_url=${encodeURIComponent(url.toString())};end`

export type AppHandOff =
  | { readonly kind: "redirect"; readonly location: string }
  | { readonly kind: "page"; readonly appUrl: string; readonly webUrl: string }

/** The app deep link for a destination on a phone, or undefined when no known app takes it. */
export const appDeepLink = (destination: string, platform: "ios" | "android"): AppHandOff | undefined => {
  let url: URL
  try {
    url = new URL(destination)
  } catch {
    return undefined
  }
  const app = BY_HOST.get(url.hostname.toLowerCase())
  if (app === undefined) return undefined
  if (platform === "android") return { kind: "redirect", location: intentUrl(url, app.androidPackage) }
  const appUrl = app.ios?.(url)
  return appUrl === undefined ? undefined : { kind: "page", appUrl, webUrl: destination }
}

/** From an Android in-app browser to the default browser, falling back to the page itself. */
export const browserHandOff = (destination: string): string | undefined => {
  try {
    return intentUrl(new URL(destination))
  } catch {
    return undefined
  }
}
