import { describe, expect, it } from "vitest"
import { classifyAudience } from "../../engine/visitors/audience.ts"
import { IN_APP_BROWSER_FAMILIES } from "../../engine/visitors/inAppBrowsers.ts"

// `source` is the public collection each string was copied from (github:owner/repo@commit:path).
const UA_PARSER = "github:faisalman/ua-parser-js@18d39b53dd:test/data/ua"
const MATOMO = "github:matomo-org/device-detector@3856a28692:Tests/fixtures"
const HUTOOL =
  "github:dromara/hutool@04b5cc9e0f:hutool-http/src/test/java/cn/hutool/http/useragent/UserAgentUtilTest.java"
const ISBOT = "github:omrilotan/isbot@344052da66:fixtures"

interface Sample {
  readonly app: string
  readonly ua: string
  readonly source: string
}

/** In-app browsers of super-apps, messengers and social apps: a person tapped a link. */
const IN_APP_BROWSERS: readonly Sample[] = [
  { app: "Alipay", ua: "Mozilla/5.0 (Linux; U; Android 10; zh-CN; V2034A Build/QP1A.190711.020) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/69.0.3497.100 UWS/3.22.2.33 Mobile Safari/537.36 UCBS/3.22.2.33_211025173018 NebulaSDK/1.8.100112 Nebula AlipayDefined(nt:WIFI,ws:360|0|2.0) AliApp(AP/10.2.51.7100) AlipayClient/10.2.51.7100 Language/zh-Hans useStatusBar/true isConcaveScreen/true Region/CNAriver/1.0.0", source: `${UA_PARSER}/browser/browser-all.json` },
  { app: "Alipay", ua: "Mozilla/5.0 (Linux; Android 10; VOG-AL00 Build/HUAWEIVOG-AL00; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/105.0.5195.148 MYWeb/0.2.103.0_20230131112530 UWS/3.22.2.9999 UCBS/3.22.2.9999_220000000000 Mobile Safari/537.36 NebulaSDK/1.8.100112 Nebula AlipayDefined(nt:WIFI,ws:360|0|3.0) AliApp(AP/10.3.50.9999) AlipayClient/10.3.50.9999 Language/en isConcaveScreen/true Region/CN ProductType/devAriver/1.0.0", source: `${UA_PARSER}/browser/browser-all.json` },
  { app: "WeChat", ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 8_4_1 like Mac OS X) AppleWebKit/600.1.4 (KHTML, like Gecko) Mobile/12H321 MicroMessenger/6.3.6 NetType/WIFI Language/zh_CN", source: `${UA_PARSER}/browser/browser-all.json` },
  { app: "WeChat", ua: "Mozilla/5.0 (Linux; U; Android 5.1; zh-cn; Lenovo K50-t5 Build/LMY47D) AppleWebKit/533.1 (KHTML, like Gecko)Version/4.0 MQQBrowser/5.4 TBS/025478 Mobile Safari/533.1 MicroMessenger/6.3.5.50_r1573191.640 NetType/WIFI Language/zh_CN", source: `${UA_PARSER}/browser/browser-all.json` },
  { app: "WeChat", ua: "Mozilla/5.0 (Windows NT 6.1; WOW64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/39.0.2171.95 Safari/537.36 MicroMessenger/6.5.2.501 NetType/WIFI WindowsWechat QBCore/3.43.901.400 QQBrowser/9.0.2524.400", source: `${UA_PARSER}/browser/browser-all.json` },
  { app: "WeChat", ua: "Mozilla/5.0 (Linux; Android 9; NX629J Build/PKQ1.190321.001; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/66.0.3359.126 MQQBrowser/6.2 TBS/45016 Mobile Safari/537.36 MMWEBID/4064 MicroMessenger/7.0.10.1580(0x27000A34) Process/tools NetType/WIFI Language/zh_CN ABI/arm64", source: `${UA_PARSER}/extension/extra-devices.json` },
  { app: "WeChat", ua: "Mozilla/5.0 (Linux; Android 8.1; COR-AL10 Build/HUAWEICOR-AL10; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/57.0.2987.132 MQQBrowser/6.2 TBS/044408 Mobile Safari/537.36 MMWEBID/347 MicroMessenger/7.0.1380(0x2700003A) Process/tools NetType/WIFI Language/zh_CN", source: `${MATOMO}/smartphone-6.yml` },
  { app: "WeChat", ua: "Mozilla/5.0 (Linux; Android 12; LGE-AN10 Build/HONORLGE-AN10; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/86.0.4240.99 XWEB/3211 MMWEBSDK/20220303 Mobile Safari/537.36 MMWEBID/7223 MicroMessenger/8.0.21.2120(0x2800153B) Process/toolsmp WeChat/arm64 Weixin NetType/5G Language/zh_CN ABI/arm64", source: `${MATOMO}/smartphone-29.yml` },
  { app: "DingTalk", ua: "Mozilla/5.0 (Linux; U; Android 7.1.1; zh-CN; Readboy_G550A Build/NMF26F) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/69.0.3497.100 UWS/3.22.1.233 Mobile Safari/537.36 AliApp(DingTalk/6.5.57.23) com.alibaba.android.rimet/27727534 Channel/10002068 language/zh-CN abi/64 Pad/APad colorScheme/light", source: `${MATOMO}/tablet-9.yml` },
  { app: "LINE", ua: "Mozilla/5.0 (Linux; Android 5.0; ASUS_Z00AD Build/LRX21V; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/51.0.2704.81 Mobile Safari/537.36 Line/6.5.1/IAB", source: `${UA_PARSER}/browser/browser-all.json` },
  { app: "LINE", ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 11_2_6 like Mac OS X) AppleWebKit/604.5.6 (KHTML, like Gecko) Mobile/15D100 Safari Line/8.4.1", source: `${UA_PARSER}/browser/browser-all.json` },
  { app: "KakaoTalk", ua: "Mozilla/5.0 (Linux; Android 12; SM-G988N Build/SP1A.210812.016; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/100.0.4896.79 Mobile Safari/537.36;KAKAOTALK 2409760", source: `${UA_PARSER}/browser/browser-all.json` },
  { app: "KakaoTalk", ua: "Mozilla/5.0 (iPhone; CPU; iPhone OS 15_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 BizWebView KAKAOTALK 9.7.6", source: `${UA_PARSER}/browser/browser-all.json` },
  { app: "Naver", ua: "Mozilla/5.0 (Linux; Android 12; SM-G988N Build/SP1A.210812.016; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/90.0.4430.232 Whale/1.0.0.0 Crosswalk/26.90.3.21 Mobile Safari/537.36 NAVER(inapp; search; 1010; 11.11.2)", source: `${UA_PARSER}/browser/browser-all.json` },
  { app: "Naver", ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 13_5_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.0 Mobile/15E148 Safari/605.1 NAVER(inapp; search; 720; 10.25.0; 11PRO)", source: `${UA_PARSER}/browser/browser-all.json` },
  { app: "Zalo", ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 13_5_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Zalo/20.05.01 Mobile/15E148", source: `${UA_PARSER}/browser/browser-all.json` },
  { app: "Zalo", ua: "Mozilla/5.0 (Linux; Android 10; Vsmart Live Build/QKQ1.190918.001; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/78.0.3904.108 Mobile Safari/537.36 Zalo/20.04.02.r1", source: `${UA_PARSER}/browser/browser-all.json` },
  { app: "Baidu", ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 12_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/16C101 main%2F1.0 baiduboxapp/11.12.0.18 (Baidu; P2 12.1.2)", source: `${UA_PARSER}/browser/browser-all.json` },
  { app: "Baidu", ua: "Mozilla/5.0 (Linux; Android 8.1.0; BKK-AL10 Build/HONORBKK-AL10; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/63.0.3239.83 Mobile Safari/537.36 T7/11.11 baiduboxapp/11.11.0.0 (Baidu; P1 8.1.0)", source: `${UA_PARSER}/browser/browser-all.json` },
  { app: "TikTok / Douyin", ua: "Mozilla/5.0 (Linux; Android 11; 21061119AG Build/RP1A.200720.011; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/92.0.4515.131 Mobile Safari/537.36 trill_2022109040 JsSdk/1.0 NetType/MOBILE Channel/googleplay AppName/musical_ly app_version/21.9.4 ByteLocale/ru-RU ByteFullLocale/ru-RU Region/KG BytedanceWebview/d8a21c6", source: `${UA_PARSER}/browser/browser-all.json` },
  { app: "TikTok / Douyin", ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 18_6_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Safari/604.1 trill_43.0.0 BytedanceWebview/d8a21c6", source: `${UA_PARSER}/browser/browser-all.json` },
  { app: "Snapchat", ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 16_0_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.0 Mobile/15E148 Snapchat/12.33.0.36 (like Safari/8614.1.25.0.31, panda)", source: `${UA_PARSER}/browser/browser-all.json` },
  { app: "Snapchat", ua: "Mozilla/5.0 (Linux; Android 12; Pixel 6 Pro Build/SQ3A.220605.009.A1; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/102.0.5005.125 Mobile Safari/537.36Snapchat11.83.0.31 (Pixel 6 Pro; Android 12#8643238#32; gzip; )", source: `${MATOMO}/mobile_apps.yml` },
  { app: "Instagram", ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 14_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 142.0.0.22.109 (iPhone12,5; iOS 14_1; en_US; en-US; scale=3.00; 1242x2688; 214888322) NW/1", source: `${UA_PARSER}/browser/browser-all.json` },
  { app: "Instagram", ua: "Mozilla/5.0 (Linux; U; Android 4.2.1; ru-ru; ZT-97003G Build/JOP40D[20131216.194236]) AppleWebKit/534.30 (KHTML, like Gecko) Version/4.0 Safari/534.30 Instagram 54.0.0.14.82 Android (17/4.2.1; 160dpi; 1024x720; ULMART/ZIFRO; ZT-97003G; ZT-97003G; mt8389; ru_RU; 117539687)", source: `${MATOMO}/tablet-6.yml` },
  { app: "Threads", ua: "Mozilla/5.0 (Linux; Android 14; SM-S928N Build/UP1A.231005.007; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/122.0.6261.119 Mobile Safari/537.36 Barcelona 323.1.0.35.109 Android (34/14; 420dpi; 1080x2138; samsung; SM-S928N; e3q; qcom; ko_KR; 579136510)", source: `${MATOMO}/smartphone-38.yml` },
  { app: "Facebook", ua: "Mozilla/5.0 (Linux; Android 5.0; SM-G900P Build/LRX21T; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/43.0.2357.121 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/35.0.0.48.273;]", source: `${UA_PARSER}/browser/browser-all.json` },
  { app: "Facebook", ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 10_3_1 like Mac OS X) AppleWebKit/603.1.30 (KHTML, like Gecko) Mobile/14E304 [FBAN/FBIOS;FBAV/91.0.0.41.73;FBBV/57050710;FBDV/iPhone8,1;FBMD/iPhone;FBSN/iOS;FBSV/10.3.1;FBSS/2;FBCR/Telekom.de;FBID/phone;FBLC/de_DE;FBOP/5;FBRV/0])", source: `${UA_PARSER}/browser/browser-all.json` },
  { app: "Messenger", ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 10_3_3 like Mac OS X) AppleWebKit/603.3.8 (KHTML, like Gecko) Mobile/14G60 [FBAN/MessengerForiOS;FBAV/132.0.0.41.90;FBBV/69171754;FBDV/iPhone8,4;FBMD/iPhone;FBSN/iOS;FBSV/10.3.3;FBSS/2;FBCR/Koodo;FBID/phone;FBLC/en_US;FBOP/5;FBRV/0]", source: `${MATOMO}/mobile_apps.yml` },
  { app: "Twitter", ua: "Mozilla/5.0 (Linux; Android 13; CPH2531 Build/SP1A.210812.016; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/123.0.6312.120 Mobile Safari/537.36 TwitterAndroid", source: `${UA_PARSER}/browser/browser-all.json` },
  { app: "Twitter", ua: "Mozilla/5.0 (iPad; CPU OS 15_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/19H12 Twitter for iPhone/10.34", source: `${UA_PARSER}/browser/browser-all.json` },
  { app: "LinkedIn", ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 15_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [LinkedInApp]", source: `${UA_PARSER}/browser/browser-all.json` },
  { app: "Pinterest", ua: "Mozilla/5.0 (Linux; Android 7.0; BL5000 Build/NRD90M; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/63.0.3239.111 Mobile Safari/537.36 [Pinterest/Android]", source: `${MATOMO}/smartphone-3.yml` },
  { app: "QQ", ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 10_0_2 like Mac OS X) AppleWebKit/602.1.50 (KHTML, like Gecko) Mobile/14A456 QQ/6.5.3.410 V1_IPH_SQ_6.5.3_1_APP_A Pixel/1080 Core/UIWebView NetType/WIFI Mem/26", source: `${UA_PARSER}/browser/browser-all.json` },
  { app: "QQ", ua: "Mozilla/5.0 (Linux; Android 6.0; PRO 6 Build/MRA58K) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/37.0.0.0 Mobile MQQBrowser/6.8 TBS/036824 Safari/537.36 V1_AND_SQ_6.5.8_422_YYB_D PA QQ/6.5.8.2910 NetType/WIFI WebP/0.3.0 Pixel/1080", source: `${UA_PARSER}/browser/browser-all.json` },
  { app: "Weibo", ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 12_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/16A366 Weibo (iPhone8,2__weibo__8.9.3__iphone__os12.0)", source: `${UA_PARSER}/browser/browser-all.json` },
  { app: "Viber", ua: "Mozilla/5.0 (Linux; Android 7.1.2; G011A Build/N2G48H; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/66.0.3359.158 Safari/537.36 Viber/11.9.5.8", source: `${MATOMO}/smartphone-4.yml` },
  { app: "Reddit", ua: "Mozilla/5.0 (Linux; Android 12; 2107113SG Build/SKQ1.211006.001; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/103.0.5060.129 Mobile Safari/537.36 Reddit/Version 2022.28.0/Build 533235/Android 12", source: `${MATOMO}/clienthints-app.yml` },
  { app: "Yahoo! JAPAN", ua: "Mozilla/5.0 (Linux; Android 13; SH-M20 Build/TKQ1.220915.002; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/132.0.6834.163 Mobile Safari/537.36 YJApp-ANDROID jp.co.yahoo.android.yjtop/3.187.0", source: `${UA_PARSER}/extension/inapp.json` },
  {
    app: "Alipay",
    ua: "Mozilla/5.0 (Linux; U; Android 7.0; zh-CN; FRD-AL00 Build/HUAWEIFRD-AL00) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/40.0.2214.89 UCBrowser/11.3.8.909 UWS/2.10.2.5 Mobile Safari/537.36 UCBS/2.10.2.5 Nebula AlipayDefined(nt:WIFI,ws:360|0|3.0) AliApp(AP/10.0.18.062203) AlipayClient/10.0.18.062203 Language/zh-Hans useStatusBar/true",
    source: HUTOOL
  },
  {
    app: "Taobao",
    ua: "Mozilla/5.0 (Linux; U; Android 4.4.4; zh-cn; MI 2C Build/KTU84P) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/30.0.0.0 Mobile Safari/537.36 AliApp(TB/4.9.2) WindVane/5.2.2 TBANDROID/700342@taobao_android_4.9.2 720X1280",
    source: HUTOOL
  },
  {
    app: "DingTalk",
    ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 14_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/18A373 AliApp(DingTalk/5.1.33) com.laiwang.DingTalk/13976299 Channel/201200 language/zh-Hans-CN WK",
    source: HUTOOL
  },
  {
    app: "WeCom",
    ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 14_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 wxwork/3.0.31 MicroMessenger/7.0.1 Language/zh",
    source: HUTOOL
  }
]

/**
 * Strings that carry an in-app browser's token but are not a person: the bot marker outside
 * the app's own fields must still be seen once those fields are blanked out.
 */
const BOTS_WITH_IN_APP_TOKENS: readonly Sample[] = [
  {
    app: "WeChat developer tools behind Tencent Cloud's CDN check",
    ua: "Mozilla/5.0 (Linux; Android 11; FIG-AL10 Build/HUAWEIFIG-AL10; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/105.0.0.0MQQBrowser/6.2 TBS/045223 Mobile Safari/537.36 MMWEBID/1214 MicroMessenger/7.0.14.1660(0x27000E39) Process/tools NetType/WIFI Language/zh_CN ABI/arm64 WeChat/arm64 wechatdevtools qcloudcdn-xinan",
    source: `${ISBOT}/crawlers.yml`
  },
  {
    app: "WeChat developer tools on iOS",
    ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 13_1_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 MicroMessenger/7.0.12(0x17000c2f) NetType/4G Language/zh_CN wechatdevtools qcloudcdn-xinan",
    source: `${ISBOT}/crawlers.yml`
  },
  {
    app: "KakaoTalk link preview",
    ua: "facebookexternalhit/1.1; kakaotalk-scrap/1.0; +https://devtalk.kakao.com/t/scrap/33984",
    source: `${ISBOT}/downloaded/myip.ms.json`
  },
  {
    app: "Snapchat link preview",
    ua: "Snap URL Preview Service; bot; snapchat; https://developers.snap.com/robots",
    source: `${ISBOT}/downloaded/myip.ms.json`
  },
  {
    app: "A crawler borrowing Alipay's fields (constructed)",
    ua: "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36 AlipayDefined(nt:WIFI,ws:360|0|3.0) AlipayClient/10.2.90.9000 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    source: "constructed"
  }
]

const truncate = (s: string, max = 90): string => (s.length <= max ? s : `${s.slice(0, max - 1)}…`)

describe("IN_APP_BROWSER_FAMILIES", () => {
  it.each(IN_APP_BROWSER_FAMILIES.map((family) => [family.app, family] as const))(
    "%s cites real User-Agents and compiles",
    (_app, family) => {
      expect(new URL(family.source).protocol).toBe("https:")
      expect(family.dataFields.length).toBeGreaterThan(0)
      expect(() => new RegExp(family.token)).not.toThrow()
      for (const field of family.dataFields) expect(() => new RegExp(field, "g")).not.toThrow()
    }
  )

  it.each(IN_APP_BROWSER_FAMILIES.map((family) => [family.app, family] as const))(
    "%s has a sample whose own fields would make isbot call it a bot",
    (app, family) => {
      const token = new RegExp(family.token)
      expect(IN_APP_BROWSERS.some((sample) => token.test(sample.ua)), app).toBe(true)
    }
  )
})

describe("in-app browsers are people", () => {
  it.each(IN_APP_BROWSERS.map((sample) => [sample.app, truncate(sample.ua), sample] as const))(
    "%s: %s",
    (_app, _short, { ua }) => {
      expect(classifyAudience(ua, undefined)).toBe("people")
    }
  )
})

describe("in-app tokens do not excuse a bot", () => {
  it.each(BOTS_WITH_IN_APP_TOKENS.map((sample) => [sample.app, truncate(sample.ua), sample] as const))(
    "%s: %s",
    (_app, _short, { ua }) => {
      expect(classifyAudience(ua, undefined)).toBe("bot")
    }
  )
})
