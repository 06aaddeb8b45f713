import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { clearDeviceMemo, parseDevice, type DeviceInfo } from "../../engine/visitors/device.ts"
import { isSocialPreviewCrawler } from "../../engine/visitors/socialPreview.ts"

// User agents below are copied from test/fixtures/user-agents.tsv unless marked otherwise.
interface Case {
  readonly name: string
  readonly ua: string
  readonly expected: Partial<DeviceInfo>
}

const inBrowser = { inAppBrowser: null } as const

const cases: Case[] = [
  // iOS
  {
    name: "iPhone Safari",
    ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 18_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1",
    expected: { device: "mobile", browser: "Safari", os: "iOS", platform: "ios", ...inBrowser }
  },
  {
    name: "iPhone Chrome",
    ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 26_6_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/151.0.7922.112 Mobile/15E148 Safari/604.1",
    expected: { device: "mobile", browser: "Chrome", os: "iOS", platform: "ios", ...inBrowser }
  },
  {
    name: "iPhone Firefox",
    ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 26_2_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/140.1  Mobile/15E148 Safari/605.1.15",
    expected: { device: "mobile", browser: "Firefox", os: "iOS", platform: "ios", ...inBrowser }
  },
  {
    name: "iPhone Edge",
    ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) EdgiOS/131.0.2903.145 Version/18.0 Mobile/15E148 Safari/604.1",
    expected: { device: "mobile", browser: "Edge", os: "iOS", platform: "ios", ...inBrowser }
  },
  {
    name: "iPhone Google app",
    ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 26_5_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) GSA/432.9.954074404 Mobile/15E148 Safari/604.1",
    expected: { device: "mobile", browser: "Google App", os: "iOS", platform: "ios", ...inBrowser }
  },
  {
    name: "iPhone unknown app WebView",
    ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 18_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148",
    expected: { device: "mobile", browser: "WebView", os: "iOS", platform: "ios", ...inBrowser }
  },
  {
    name: "iPad Safari",
    ua: "Mozilla/5.0 (iPad; CPU OS 18_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.2 Mobile/15E148 Safari/604.1",
    expected: { device: "tablet", browser: "Safari", os: "iOS", platform: "ios", ...inBrowser }
  },
  {
    name: "iPad Chrome",
    ua: "Mozilla/5.0 (iPad; CPU OS 26_5_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/151.0.7922.57 Mobile/15E148 Safari/604.1",
    expected: { device: "tablet", browser: "Chrome", os: "iOS", platform: "ios", ...inBrowser }
  },
  // Android
  {
    name: "Android phone Chrome",
    ua: "Mozilla/5.0 (Linux; Android 15; Pixel 9a) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/135.0.0.0 Mobile Safari/537.36",
    expected: { device: "mobile", browser: "Chrome", os: "Android", platform: "android", ...inBrowser }
  },
  {
    name: "Android phone Chrome (reduced UA)",
    ua: "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/151.0.0.0 Mobile Safari/537.36",
    expected: { device: "mobile", browser: "Chrome", os: "Android", platform: "android", ...inBrowser }
  },
  {
    name: "Android tablet Chrome (reduced UA, no Mobile token)",
    ua: "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/151.0.0.0 Safari/537.36",
    expected: { device: "tablet", browser: "Chrome", os: "Android", platform: "android", ...inBrowser }
  },
  {
    name: "Android phone Samsung Internet",
    ua: "Mozilla/5.0 (Linux; Android 15; SM-S938B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/28.0 Chrome/130.0.0.0 Mobile Safari/537.36",
    expected: { device: "mobile", browser: "Samsung Internet", os: "Android", platform: "android", ...inBrowser }
  },
  {
    name: "Android tablet Samsung Internet",
    ua: "Mozilla/5.0 (Linux; Android 15; SM-X526B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/28.0 Chrome/130.0.0.0 Safari/537.36",
    expected: { device: "tablet", browser: "Samsung Internet", os: "Android", platform: "android", ...inBrowser }
  },
  {
    name: "Android Firefox",
    ua: "Mozilla/5.0 (Android 16; Mobile; rv:153.0) Gecko/153.0 Firefox/153.0",
    expected: { device: "mobile", browser: "Firefox", os: "Android", platform: "android", ...inBrowser }
  },
  {
    name: "Android Edge",
    ua: "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/150.0.0.0 Mobile Safari/537.36 EdgA/150.0.0.0",
    expected: { device: "mobile", browser: "Edge", os: "Android", platform: "android", ...inBrowser }
  },
  {
    name: "Android Opera Mini (no device type from the parser)",
    ua: "Opera/9.80 (Android; Opera Mini/7.5.33361/34.861; U; en) Presto/2.8.119 Version/11.10",
    expected: { device: "mobile", browser: "Opera Mini", os: "Android", platform: "android", ...inBrowser }
  },
  {
    name: "Android app WebView",
    ua: "Mozilla/5.0 (Linux; Android 12; Redmi Note 9 Pro Build/SKQ1.211019.001; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/150.0.7871.181 Mobile Safari/537.36",
    expected: { device: "mobile", browser: "WebView", os: "Android", platform: "android", ...inBrowser }
  },
  {
    name: "Android Google app",
    ua: "Mozilla/5.0 (Linux; Android 15; SM-X920 Build/AP3A.240905.015.A2; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/139.0.7258.158 Safari/537.36 GoogleApp/16.34.61.ve.arm64 DSRP",
    expected: { device: "tablet", browser: "Google App", os: "Android", platform: "android", ...inBrowser }
  },
  {
    name: "Kindle Fire tablet Silk",
    ua: "Mozilla/5.0 (Linux; Android 11; KFTUWI) AppleWebKit/537.36 (KHTML, like Gecko) Silk/118.1.77 like Chrome/118.0.5993.111 Safari/537.36",
    expected: { device: "tablet", browser: "Silk", os: "Android", platform: "android", ...inBrowser }
  },
  {
    name: "HarmonyOS phone with Android compatibility",
    ua: "Mozilla/5.0 (Linux; Android 12; HarmonyOS; PLU-AL10; HMSCore 6.14.2.319) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/114.0.5735.196 HuaweiBrowser/15.0.10.302 Mobile Safari/537.36",
    expected: { device: "mobile", browser: "Huawei Browser", os: "HarmonyOS", platform: "android", ...inBrowser }
  },
  // Desktop
  {
    name: "Windows Chrome",
    ua: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/151.0.0.0 Safari/537.36",
    expected: { device: "desktop", browser: "Chrome", os: "Windows", platform: "desktop", ...inBrowser }
  },
  {
    name: "Windows Edge",
    ua: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/151.0.0.0 Safari/537.36 Edg/151.0.0.0",
    expected: { device: "desktop", browser: "Edge", os: "Windows", platform: "desktop", ...inBrowser }
  },
  {
    name: "Windows Firefox",
    ua: "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:153.0) Gecko/20100101 Firefox/153.0",
    expected: { device: "desktop", browser: "Firefox", os: "Windows", platform: "desktop", ...inBrowser }
  },
  {
    name: "Windows Opera",
    ua: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/150.0.0.0 Safari/537.36 OPR/134.0.0.0",
    expected: { device: "desktop", browser: "Opera", os: "Windows", platform: "desktop", ...inBrowser }
  },
  {
    name: "Windows Internet Explorer 11",
    ua: "Mozilla/5.0 (Windows NT 6.1; WOW64; Trident/7.0; rv:11.0) like Gecko",
    expected: { device: "desktop", browser: "Internet Explorer", os: "Windows", platform: "desktop", ...inBrowser }
  },
  {
    name: "macOS Safari",
    ua: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Safari/605.1.15",
    expected: { device: "desktop", browser: "Safari", os: "macOS", platform: "desktop", ...inBrowser }
  },
  {
    name: "macOS Chrome",
    ua: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/151.0.0.0 Safari/537.36",
    expected: { device: "desktop", browser: "Chrome", os: "macOS", platform: "desktop", ...inBrowser }
  },
  {
    name: "macOS Firefox",
    ua: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:153.0) Gecko/20100101 Firefox/153.0",
    expected: { device: "desktop", browser: "Firefox", os: "macOS", platform: "desktop", ...inBrowser }
  },
  {
    name: "Linux Firefox",
    ua: "Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0",
    expected: { device: "desktop", browser: "Firefox", os: "Linux", platform: "desktop", ...inBrowser }
  },
  {
    name: "Ubuntu Firefox is reported as Linux",
    ua: "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0",
    expected: { device: "desktop", browser: "Firefox", os: "Linux", platform: "desktop", ...inBrowser }
  },
  {
    name: "Linux Chrome",
    ua: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/151.0.0.0 Safari/537.36",
    expected: { device: "desktop", browser: "Chrome", os: "Linux", platform: "desktop", ...inBrowser }
  },
  {
    name: "Chrome OS",
    ua: "Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/150.0.0.0 Safari/537.36",
    expected: { device: "desktop", browser: "Chrome", os: "Chrome OS", platform: "desktop", ...inBrowser }
  },
  // TVs, consoles and the rest
  {
    name: "Samsung Tizen smart TV",
    ua: "Mozilla/5.0 (SMART-TV; Linux; Tizen 8.0) AppleWebKit/537.36 (KHTML, like Gecko) Samsung Browser/7.0 Chrome/108.0.5359.1 TV Safari/537.36",
    expected: { device: "tv", browser: "Samsung Internet", os: "Tizen", platform: "other", ...inBrowser }
  },
  {
    name: "LG webOS TV",
    ua: "Mozilla/5.0 (Web0S; Linux/SmartTV) AppleWebKit/537.36 (KHTML, like Gecko) Chr0me/68.0.3440.106 Safari/537.36 LG Browser/8.00.00(LGE; E65A71B-S; 04.50.63; 0x00000001; DTV_C20P); webOS.TV-2020; LG NetCast.TV-2013 Compatible (LGE, E65A71B-S, wired)",
    expected: { device: "tv", browser: "LG Browser", os: "webOS", platform: "other", ...inBrowser }
  },
  {
    name: "Fire TV (Android, but not a phone)",
    ua: "Mozilla/5.0 (Linux; Android 9; AFTSHN01) AppleWebKit/537.36 (KHTML, like Gecko) Silk/128.6.1 like Chrome/128.0.6613.194 Safari/537.36",
    expected: { device: "tv", browser: "Silk", os: "Android", platform: "other", ...inBrowser }
  },
  {
    name: "Sony Android TV",
    ua: "Mozilla/5.0 (Linux; Android 9; BRAVIA 4K GB ATV3) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/103.0.0.0 Mobile Safari/537.36",
    expected: { device: "tv", os: "Android", platform: "other", ...inBrowser }
  },
  {
    name: "PlayStation 5",
    ua: "Mozilla/5.0 (PlayStation; PlayStation 5/2.26) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.0 Safari/605.1.15",
    expected: { device: "console", os: "PlayStation", platform: "other", ...inBrowser }
  },
  {
    name: "Xbox Series X",
    ua: "Mozilla/5.0 (Windows NT 10.0; Win64; x64; Xbox; Xbox Series X) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/48.0.2564.82 Safari/537.36 Edge/20.02",
    expected: { device: "console", browser: "Edge", os: "Xbox", platform: "other", ...inBrowser }
  },
  {
    name: "Nintendo Switch",
    ua: "Mozilla/5.0 (Nintendo Switch; WifiWebAuthApplet) AppleWebKit/606.4 (KHTML, like Gecko) NF/6.0.1.15.4 NintendoBrowser/5.1.0.20393",
    expected: { device: "console", browser: "Nintendo Browser", os: "Nintendo", platform: "other", ...inBrowser }
  },
  {
    name: "Steam Deck",
    ua: "Mozilla/5.0 (X11; Linux x86_64; Valve Steam Client/Steam Deck [Steam Deck Beta]/default/0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.183 Safari/537.36",
    expected: { device: "console", platform: "other" }
  },
  {
    name: "Meta Quest (XR headset)",
    ua: "Mozilla/5.0 (X11; Linux x86_64; Quest 3) AppleWebKit/537.36 (KHTML, like Gecko) OculusBrowser/32.1.0.37.133.575621010 Chrome/122.0.6261.64 VR Safari/537.36",
    expected: { device: "other", browser: "Oculus Browser", platform: "other", ...inBrowser }
  },
  {
    name: "Meta Quest Pro (also claims SamsungBrowser)",
    ua: "Mozilla/5.0 (X11; Linux x86_64; Quest Pro) AppleWebKit/537.36 (KHTML, like Gecko) OculusBrowser/24.4.0.22.60.426469926 SamsungBrowser/4.0 Chrome/106.0.5249.181 VR Safari/537.36",
    expected: { device: "other", browser: "Oculus Browser", platform: "other" }
  },
  {
    name: "Tesla car",
    ua: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/100.0.4896.127 Safari/537.36 Tesla/feature-2022.20.8-109-8f941dcd0b",
    expected: { device: "other", platform: "other" }
  },
  {
    name: "Galaxy Watch",
    ua: "Mozilla/5.0 (Linux; Tizen 5.5; SAMSUNG SM-R805W) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/2.0 Chrome/69.0.3497.106 Mobile Safari/537.36",
    expected: { device: "other", os: "Tizen", platform: "other" }
  },
  {
    name: "KaiOS feature phone",
    ua: "Mozilla/5.0 (Mobile; ALCATEL 4056W; rv:84.0) Gecko/84.0 Firefox/84.0 KAIOS/3.0",
    expected: { device: "mobile", os: "KaiOS", platform: "other" }
  },
  {
    name: "Windows Phone (claims Android and iPhone)",
    ua: "Mozilla/5.0 (Mobile; Windows Phone 8.1; Android 4.0; ARM; Trident/7.0; Touch; rv:11.0; IEMobile/11.0; Microsoft; Lumia 640 XL Dual SIM) like iPhone OS 7_0_3 Mac OS X AppleWebKit/537 (KHTML, like Gecko) Mobile Safari/533.1",
    expected: { device: "mobile", os: "Windows Phone", platform: "other" }
  },
  // In-app browsers of social apps
  {
    name: "Instagram on Android",
    ua: "Mozilla/5.0 (Linux; Android 14; SM-S921N Build/UP1A.231005.007; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/122.0.6261.119 Mobile Safari/537.36 Instagram 324.0.0.27.50 Android (34/14; 420dpi; 1080x2127; samsung; SM-S921N; e1s; s5e9945; ko_KR; 581020724)",
    expected: { device: "mobile", browser: "Instagram", os: "Android", platform: "android", inAppBrowser: "Instagram" }
  },
  {
    name: "Instagram on iPhone",
    ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/20G75 Instagram 296.0.0.18.107 (iPhone14,8; iOS 16_6; en_US; en; scale=3.00; 1284x2778; 505423516)",
    expected: { device: "mobile", browser: "Instagram", os: "iOS", platform: "ios", inAppBrowser: "Instagram" }
  },
  {
    name: "Facebook on Android",
    ua: "Mozilla/5.0 (Linux; Android 15; NLA-LX1 Build/HONORNLA-L31; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/144.0.7559.107 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/546.0.0.42.66;IABMV/1;]",
    expected: { device: "mobile", browser: "Facebook", os: "Android", platform: "android", inAppBrowser: "Facebook" }
  },
  {
    name: "Facebook on iPhone",
    ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_6_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/21G93 [FBAN/FBIOS;FBAV/479.1.0.33.109;FBBV/637241220;FBDV/iPhone15,2;FBMD/iPhone;FBSN/iOS;FBSV/17.6.1;FBSS/3;FBID/phone;FBLC/es_ES;FBOP/5;FBRV/639094949;IABMV/1]",
    expected: { device: "mobile", browser: "Facebook", os: "iOS", platform: "ios", inAppBrowser: "Facebook" }
  },
  {
    name: "Facebook on iPad",
    ua: "Mozilla/5.0 (iPad; CPU OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/21G5061c [FBAN/FBIOS;FBAV/471.0.0.20.112;FBBV/618472162;FBDV/iPad14,5;FBMD/iPad;FBSN/iPadOS;FBSV/17.6;FBSS/2;FBID/tablet;FBLC/nl_NL;FBOP/5;FBRV/618993062]",
    expected: { device: "tablet", os: "iOS", platform: "ios", inAppBrowser: "Facebook" }
  },
  {
    name: "Messenger on Android",
    ua: "Mozilla/5.0 (Linux; Android 11; SM-A525M Build/RP1A.200720.012; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/87.0.4280.141 Mobile Safari/537.36 [FB_IAB/Orca-Android;FBAV/349.0.0.7.108;]",
    expected: { platform: "android", inAppBrowser: "Messenger" }
  },
  {
    name: "Threads on Android",
    ua: "Mozilla/5.0 (Linux; Android 15; Z2464N Build/AP3A.240905.015.A2; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/137.0.7151.88 Mobile Safari/537.36 Barcelona 384.0.0.33.86 Android (35/15; 400dpi; 900x2030; nubia; Z2464N; P780F01; ums9632_1h10; es_MX; 745210318)",
    expected: { platform: "android", inAppBrowser: "Threads" }
  },
  {
    name: "TikTok on Android",
    ua: "Mozilla/5.0 (Linux; Android 10; STK-LX1 Build/HONORSTK-LX1; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/110.0.5481.153 Mobile Safari/537.36 musical_ly_2022803040 JsSdk/1.0 NetType/WIFI Channel/huaweiadsglobal_int AppName/musical_ly app_version/28.3.4 ByteLocale/en ByteFullLocale/en Region/IQ Spark/1.2.7-alpha.8 AppVersion/28.3.4 PIA/1.5.11 BytedanceWebview/d8a21c6",
    expected: { device: "mobile", browser: "TikTok", platform: "android", inAppBrowser: "TikTok" }
  },
  {
    name: "TikTok Lite on Android",
    ua: "Mozilla/5.0 (Linux; Android 8.0.0; SM-J400F Build/R16NW; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/68.0.3440.91 Mobile Safari/537.36 Channel/release AppName/ultralite app_version/27.2.3 Region/ID ByteLocale/id-ID ByteFullLocale/id-ID",
    expected: { platform: "android", inAppBrowser: "TikTok" }
  },
  {
    name: "TikTok on iPhone",
    ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 18_6_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Safari/604.1 trill_43.0.0 BytedanceWebview/d8a21c6",
    expected: { platform: "ios", inAppBrowser: "TikTok" }
  },
  {
    name: "X (Twitter) on Android",
    ua: "Mozilla/5.0 (Linux; Android 15; SM-F741U Build/AP3A.240905.015.A2; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/135.0.7049.111 Mobile Safari/537.36 TwitterAndroid",
    expected: { platform: "android", inAppBrowser: "Twitter" }
  },
  {
    name: "LinkedIn on Android",
    ua: "Mozilla/5.0 (Linux; Android 15; SM-A146P Build/AP3A.240905.015.A2; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/140.0.7339.207 Mobile Safari/537.36 [LinkedInApp]/2.200.63",
    expected: { platform: "android", inAppBrowser: "LinkedIn" }
  },
  {
    name: "Snapchat on Android (no space before the token)",
    ua: "Mozilla/5.0 (Linux; Android 12; Pixel 6 Pro Build/SQ3A.220605.009.A1; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/102.0.5005.125 Mobile Safari/537.36Snapchat11.83.0.31 (Pixel 6 Pro; Android 12#8643238#32; gzip; )",
    expected: { browser: "Snapchat", platform: "android", inAppBrowser: "Snapchat" }
  },
  {
    name: "WeChat on Android",
    ua: "Mozilla/5.0 (Linux; Android 13; PHF110 Build/RKQ1.211119.001; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/116.0.0.0 Mobile Safari/537.36 XWEB/1160117 MMWEBSDK/20231202 MMWEBID/4213 MicroMessenger/8.0.46.2540(0x28002E3C) WeChat/arm64 Weixin NetType/5G Language/zh_CN ABI/arm64",
    expected: { platform: "android", inAppBrowser: "WeChat" }
  },
  {
    name: "Line on Android",
    ua: "Mozilla/5.0 (Linux; Android 15; JMS-L09 Build/AQ3A.241229.001; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/149.0.7827.93 Mobile Safari/537.36 Line/26.9.0/IAB",
    expected: { platform: "android", inAppBrowser: "Line" }
  },
  {
    name: "Line on iPhone",
    ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 11_2_6 like Mac OS X) AppleWebKit/604.5.6 (KHTML, like Gecko) Mobile/15D100 Safari Line/8.4.1",
    expected: { platform: "ios", inAppBrowser: "Line" }
  },
  {
    name: "KakaoTalk on Android",
    ua: "Mozilla/5.0 (Linux; Android 12; SM-G988N Build/SP1A.210812.016; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/100.0.4896.79 Mobile Safari/537.36;KAKAOTALK 2409760",
    expected: { platform: "android", inAppBrowser: "KakaoTalk" }
  },
  {
    name: "Pinterest on Android",
    ua: "Mozilla/5.0 (Linux; Android 7.0; BL5000 Build/NRD90M; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/63.0.3239.111 Mobile Safari/537.36 [Pinterest/Android]",
    expected: { platform: "android", inAppBrowser: "Pinterest" }
  },
  {
    name: "Reddit on Android",
    ua: "Mozilla/5.0 (Linux; Android 12; 2107113SG Build/SKQ1.211006.001; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/103.0.5060.129 Mobile Safari/537.36 Reddit/Version 2022.28.0/Build 533235/Android 12",
    expected: { platform: "android", inAppBrowser: "Reddit" }
  }
]

describe("parseDevice", () => {
  it.each(cases)("$name", ({ ua, expected }) => {
    expect(parseDevice(ua)).toMatchObject(expected)
  })

  it.each([
    { name: "absent", ua: undefined },
    { name: "empty", ua: "" }
  ])("an $name User-Agent is an unknown device", ({ ua }) => {
    expect(parseDevice(ua)).toEqual({ device: "other", browser: "Unknown", os: "Unknown", platform: "other", inAppBrowser: null })
  })

  it("gives an HTTP client no device rule and no browser name", () => {
    expect(parseDevice("curl/8.5.0")).toMatchObject({ device: "other", platform: "other", inAppBrowser: null })
  })

  it("memoises a frozen result", () => {
    clearDeviceMemo()
    const ua = cases[0].ua
    const first = parseDevice(ua)
    expect(parseDevice(ua)).toBe(first)
    expect(Object.isFrozen(first)).toBe(true)
  })

  it("answers the same after the memo overflows and is cleared", () => {
    for (let i = 0; i < 10_000; i++) parseDevice(`Mozilla/5.0 (X11; Linux x86_64) Firefox/${i}.0`)
    for (const { ua, expected } of cases) expect(parseDevice(ua), ua).toMatchObject(expected)
  })
})

// Preview crawlers get the Open Graph page, so none may ever be a person's browser.
const corpusRows = readFileSync(new URL("../fixtures/user-agents.tsv", import.meta.url), "utf8")
  .split("\n")
  .slice(1)
  .filter((line) => line.length > 0)
  .map((line) => {
    const [label, ua] = line.split("\t")
    return { label, ua, short: ua.length > 70 ? `${ua.slice(0, 69)}…` : ua }
  })

describe("isSocialPreviewCrawler", () => {
  it.each([
    "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
    "Facebot/1.0",
    "Twitterbot/1.0",
    "LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)",
    "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
    "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
    "TelegramBot (like TwitterBot)",
    "WhatsApp/2.23.20.0",
    "Mozilla/5.0 (compatible; Pinterestbot/1.0; +http://www.pinterest.com/bot.html)",
    "Mozilla/5.0 (compatible; Applebot/0.1; +http://www.apple.com/go/applebot)",
    "Mozilla/5.0 (compatible; redditbot/1.0; +http://www.reddit.com/feedback)",
    "Mozilla/5.0 (Windows NT 6.1; WOW64) SkypeUriPreview Preview/0.5 skype-url-preview@microsoft.com",
    "Mozilla/5.0 (compatible; Embedly/0.2; +http://support.embed.ly/)",
    "Iframely/1.3.1 (+https://iframely.com/docs/about)",
    "Mozilla/5.0 (compatible; vkShare; +http://vk.com/dev/Share)",
    "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Bluesky Cardyb/1.1; +mailto:support@bsky.app) Chrome/100.0.0.0 Safari/537.36",
    "facebookexternalhit/1.1; kakaotalk-scrap/1.0; +https://devtalk.kakao.com/t/scrap/33984",
    "Snap URL Preview Service; bot; snapchat; https://developers.snap.com/robots",
    "http.rb/3.2.0 (Mastodon/2.4.3; +https://uwu.social/)",
    // Not in the corpus: iMessage's preview fetcher, as sent by macOS and iOS.
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0",
    // Not in the corpus: Google's snippet fetcher (Google Chat).
    "Mozilla/5.0 (compatible; Google-PageRenderer Google (+https://developers.google.com/+/web/snippet/)"
  ])("preview: %s", (ua) => {
    expect(isSocialPreviewCrawler(ua)).toBe(true)
  })

  it.each([
    // Search crawlers must follow the redirect so the destination is indexed.
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
    // Same vendors, not previews.
    "Slackbot 1.0 (+https://api.slack.com/robots)",
    "Slack-ImgProxy 0.19 (+https://api.slack.com/robots)",
    "meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)",
    "meta-externalfetcher/1.1",
    // In-app browsers of the same apps are people.
    "Mozilla/5.0 (Linux; Android 7.0; BL5000 Build/NRD90M; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/63.0.3239.111 Mobile Safari/537.36 [Pinterest/Android]",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 15_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [LinkedInApp]",
    "curl/8.5.0",
    ""
  ])("not a preview: %s", (ua) => {
    expect(isSocialPreviewCrawler(ua)).toBe(false)
  })

  it("is false for an absent User-Agent", () => {
    expect(isSocialPreviewCrawler(undefined)).toBe(false)
  })

  it.each(corpusRows.filter((row) => row.label !== "bot").map((row) => [row.label, row.short, row.ua] as const))(
    "corpus %s row is not a preview: %s",
    (_label, _short, ua) => {
      expect(isSocialPreviewCrawler(ua)).toBe(false)
    }
  )
})
