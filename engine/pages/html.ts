/**
 * The engine's few pages: small, self-contained (no external assets), every interpolated value
 * escaped. Nothing from the link's secret state (password, hash) is ever placed in a page.
 */
const ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c])

/**
 * The one stylesheet, inline so a page needs no other request. Constant, so the
 * Content-Security-Policy allows it by hash (securityHeaders.ts) and nothing else inline.
 */
export const PAGE_STYLE = `body{font:16px/1.5 system-ui,sans-serif;margin:0;display:grid;place-items:center;min-height:100vh;background:#f6f7f9;color:#1c1f24}
main{max-width:26rem;padding:2rem;background:#fff;border-radius:12px;box-shadow:0 1px 3px #0002}h1{font-size:1.3rem;margin:0 0 .5rem}
input,button{font:inherit;padding:.55rem .7rem;border-radius:8px;border:1px solid #bbb;width:100%;box-sizing:border-box;margin-top:.6rem}
button{background:#1c1f24;color:#fff;border:0;cursor:pointer}.error{color:#b00020}`

const layout = (title: string, body: string, head = ""): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>${head}
<style>${PAGE_STYLE}</style></head>
<body><main>${body}</main></body></html>`

export const notFoundPage = (): string =>
  layout("Link not found", "<h1>Link not found</h1><p>This short link does not exist.</p>")

/** The database could not be reached and this engine has no earlier answer for the link. */
export const unavailablePage = (): string =>
  layout("Temporarily unavailable", "<h1>Temporarily unavailable</h1><p>This short link cannot be followed right now. Please try again in a moment.</p>")

export const expiredPage = (): string =>
  layout("Link expired", "<h1>This link has expired</h1><p>The short link you followed is no longer active.</p>")

export const badRequestPage = (reason: string): string =>
  layout("Bad request", `<h1>Bad request</h1><p>${escapeHtml(reason)}</p>`)

export const methodNotAllowedPage = (): string =>
  layout("Method not allowed", "<h1>Method not allowed</h1><p>Short links answer GET and HEAD, and POST for a password.</p>")

export const payloadTooLargePage = (): string =>
  layout("Too large", "<h1>Request too large</h1><p>The form sent was larger than this page accepts.</p>")

/** For failures of ours, never for what a visitor sent: says nothing about the link. */
export const errorPage = (): string =>
  layout("Something went wrong", "<h1>Something went wrong</h1><p>This short link could not be followed just now. Try again in a moment.</p>")

export const landingPage = (host: string): string =>
  layout(host, `<h1>${escapeHtml(host)}</h1><p>This domain serves short links.</p>`)

export const passwordPage = (action: string, state: "ask" | "wrong" | "limited"): string =>
  layout(
    "Password required",
    `<h1>This link is protected</h1><p>Enter the password to continue.</p>
${state === "wrong" ? '<p class="error">That password is not right.</p>' : ""}${
      state === "limited" ? '<p class="error">Too many attempts. Wait a minute and try again.</p>' : ""}
<form method="post" action="${escapeHtml(action)}"><input type="password" name="password" autocomplete="current-password" autofocus required aria-label="Password"><button type="submit">Continue</button></form>`
  )

export const openGraphPage = (og: { title: string | null; description: string | null; image: string | null; url: string }): string => {
  const meta = (property: string, content: string | null) =>
    content === null ? "" : `<meta property="${property}" content="${escapeHtml(content)}">`
  const twitter = (name: string, content: string | null) =>
    content === null ? "" : `<meta name="${name}" content="${escapeHtml(content)}">`
  const head = [
    meta("og:title", og.title),
    meta("og:description", og.description),
    meta("og:image", og.image),
    meta("og:url", og.url),
    meta("og:type", "website"),
    twitter("twitter:card", og.image === null ? "summary" : "summary_large_image"),
    twitter("twitter:title", og.title),
    twitter("twitter:description", og.description),
    twitter("twitter:image", og.image)
  ].join("")
  return layout(og.title ?? og.url, `<h1>${escapeHtml(og.title ?? og.url)}</h1>${og.description === null ? "" : `<p>${escapeHtml(og.description)}</p>`}`, head)
}

/**
 * The hand-off page's script. Constant, so the Content-Security-Policy allows it by hash: the URLs
 * it goes to are read from the page's data attributes, never written into the script.
 */
export const HANDOFF_SCRIPT =
  'var d=document.getElementById("handoff").dataset;setTimeout(function(){location.replace(d.web)},1200);location.href=d.app;'

/** iOS app hand-off: try the app's URL scheme, fall back to the web page if nothing opened it. */
export const appHandOffPage = (appUrl: string, webUrl: string): string =>
  layout(
    "Opening…",
    `<p id="handoff" data-app="${escapeHtml(appUrl)}" data-web="${escapeHtml(webUrl)}">Opening the app… <a href="${escapeHtml(webUrl)}">Continue in the browser</a></p>
<script>${HANDOFF_SCRIPT}</script>`
  )
