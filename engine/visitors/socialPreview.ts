/**
 * Link-preview fetchers (redirect evaluation step 5): they render a card from the page's
 * Open Graph tags instead of following the redirect to the destination, so they are answered
 * with the link's own title, description and image.
 *
 * Deliberately narrower than "bot": search crawlers (Googlebot, bingbot...) must still get
 * the redirect so the destination is what gets indexed, and other fetchers of the same
 * vendors that are not previews stay out (plain `Slackbot 1.0` and `Slack-ImgProxy`,
 * `meta-externalagent`, `meta-externalfetcher`).
 *
 * Each token must never occur in a browser's UA, and in-app browsers of the same apps look
 * alike: Pinterest's app sends `[Pinterest/Android]`, LinkedIn's `[LinkedInApp]`, WhatsApp's
 * preview fetcher starts with `WhatsApp/`, hence the anchors and suffixes below.
 */
const SOCIAL_PREVIEW = new RegExp(
  [
    // Facebook, Instagram, Threads, Messenger; also iMessage and KakaoTalk, which borrow it.
    "facebookexternalhit",
    "\\bFacebot\\b",
    "Twitterbot",
    "LinkedInBot",
    "Slackbot-LinkExpanding",
    "Discordbot",
    "TelegramBot",
    "^WhatsApp/",
    "Pinterestbot",
    // Pinterest's older preview fetcher: "Pinterest/0.2 (+http://www.pinterest.com/bot.html)"
    "^Pinterest/\\d",
    // Apple's crawler also feeds Siri/Spotlight link suggestions, which read Open Graph.
    "Applebot",
    "redditbot",
    // Skype and Microsoft Teams
    "SkypeUriPreview",
    "Embedly",
    "Iframely",
    "vkShare",
    "Bluesky Cardyb",
    "kakaotalk-scrap",
    "Snap URL Preview",
    // Mastodon servers fetch previews with http.rb: "http.rb/5.1.1 (Mastodon/4.2.0; +https://...)"
    "\\(Mastodon/",
    // Google Chat / Docs snippet fetcher
    "Google-PageRenderer",
    "XING-contenttabreceiver"
  ].join("|"),
  "i"
)

export const isSocialPreviewCrawler = (userAgent: string | undefined): boolean =>
  userAgent !== undefined && userAgent.length > 0 && SOCIAL_PREVIEW.test(userAgent)
