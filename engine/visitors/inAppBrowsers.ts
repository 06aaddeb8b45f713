/**
 * In-app browsers that append fields of their own to the WebView's User-Agent (process names,
 * install channels, network type and screen size) whose values `isbot` 5.2 misreads as bot
 * markers: WeChat's `Process/tools` holds isbot's word "tools", Alipay's
 * `AlipayDefined(nt:WIFI,ws:360|0|3.0)` a "|", Taobao's `TTID/600000@taobao_android_10.4`
 * something shaped like an e-mail address, an Instagram screen size of `1024x720` the
 * monitoring service "24x7".
 *
 * When a browser-shaped User-Agent carries one of these apps' tokens, the bot test is asked
 * again with those fields blanked out: the fields say nothing about who is clicking, and any
 * real bot marker elsewhere in the string (a `wechatdevtools` build, a preview fetcher's
 * name) is still seen. Individual strings are never allowed through by name.
 */
export interface InAppBrowserFamily {
  readonly app: string
  /** Regular-expression source for a token only the app's own browser sends. */
  readonly token: string
  /** Regular-expression sources for the fields the app appends as data. */
  readonly dataFields: readonly string[]
  /** A public collection of the app's real User-Agents showing those fields. */
  readonly source: string
}

const SCREEN_SIZE = "\\b\\d{3,4}[xX]\\d{3,4}\\b"

export const IN_APP_BROWSER_FAMILIES: readonly InAppBrowserFamily[] = [
  {
    app: "WeChat",
    token: "\\bMicroMessenger/",
    // The Android process hosting the WebView: tools, toolsmp, appbrand0...
    dataFields: ["\\bProcess/[a-z0-9]+"],
    source:
      "https://github.com/matomo-org/device-detector/blob/3856a28692d45317d3f15f6f81ca31a06067182a/Tests/fixtures/smartphone-6.yml"
  },
  {
    app: "Alipay",
    token: "\\bAlipayClient/|\\bAliApp\\(AP/",
    // Network type and screen width|height|scale.
    dataFields: ["\\bAlipayDefined\\([^)]*\\)"],
    source:
      "https://github.com/faisalman/ua-parser-js/blob/18d39b53dd803710cb8e76856d18c1dcf7533d11/test/data/ua/browser/browser-all.json"
  },
  {
    app: "Taobao",
    token: "\\bAliApp\\(TB/",
    // Install channel "<id>@taobao_android_<version>", and the screen size.
    dataFields: ["\\b(?:TTID|TBANDROID)/\\S+", SCREEN_SIZE],
    source:
      "https://github.com/dromara/hutool/blob/04b5cc9e0ffc4603750aa825d230dbaea842810e/hutool-http/src/test/java/cn/hutool/http/useragent/UserAgentUtilTest.java"
  },
  {
    app: "Instagram",
    token: "\\bInstagram \\d",
    dataFields: [SCREEN_SIZE],
    source:
      "https://github.com/matomo-org/device-detector/blob/3856a28692d45317d3f15f6f81ca31a06067182a/Tests/fixtures/tablet-6.yml"
  },
  {
    // Threads' internal code name, with Instagram's field layout.
    app: "Threads",
    token: "\\bBarcelona \\d",
    dataFields: [SCREEN_SIZE],
    source:
      "https://github.com/matomo-org/device-detector/blob/3856a28692d45317d3f15f6f81ca31a06067182a/Tests/fixtures/smartphone-38.yml"
  }
]

const IN_APP_BROWSER = new RegExp(
  `^Mozilla/5\\.0 \\(.*(?:${IN_APP_BROWSER_FAMILIES.map((family) => family.token).join("|")})`
)
const IN_APP_DATA_FIELDS = new RegExp(
  IN_APP_BROWSER_FAMILIES.flatMap((family) => family.dataFields).join("|"),
  "g"
)

/** The User-Agent with the data fields of these apps' in-app browsers blanked (unchanged for others). */
export const withoutInAppDataFields = (userAgent: string): string =>
  IN_APP_BROWSER.test(userAgent) ? userAgent.replace(IN_APP_DATA_FIELDS, " ") : userAgent
