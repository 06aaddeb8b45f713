/**
 * Default User-Agents of HTTP clients and headless automation tools that `isbot` 5.2 lets
 * through although no person is behind them. Each token is what the tool sends unless its
 * user overrides it, and none occurs in a browser's User-Agent. Matched with case.
 *
 * Left out on purpose:
 * - `Electron/` alone: Slack, Discord, Teams, VS Code, Notion and other desktop apps are
 *   Electron and their users are people. Automation built on Electron names itself
 *   (`Cypress/` is caught by isbot, `Nightmare/` below).
 * - Selenium, HtmlUnit and headless Firefox: they send an ordinary browser's User-Agent by
 *   default (headless Chrome under Selenium says `HeadlessChrome`, which isbot catches).
 * - Puppeteer and Playwright: headless Chromium says `HeadlessChrome`, and Playwright's
 *   request API sends `Playwright/<version> (...)`; isbot catches both.
 */
export interface AutomationClient {
  readonly name: string
  /** Regular-expression source for the tool's token. */
  readonly pattern: string
  /** Where the default User-Agent is defined or documented. */
  readonly source: string
}

export const AUTOMATION_CLIENTS: readonly AutomationClient[] = [
  {
    name: "Dart HttpClient",
    pattern: "\\bDart/|\\bdart:io\\b",
    source: "https://api.dart.dev/stable/dart-io/HttpClient/userAgent.html"
  },
  // Invoke-WebRequest looks like a browser apart from this token.
  {
    name: "PowerShell",
    pattern: "PowerShell/",
    source:
      "https://learn.microsoft.com/powershell/module/microsoft.powershell.utility/invoke-webrequest"
  },
  {
    name: "jsdom",
    pattern: "\\bjsdom/",
    source: "https://github.com/jsdom/jsdom/blob/main/lib/jsdom/browser/resources/resource-loader.js"
  },
  {
    name: "Zombie.js",
    pattern: "\\bZombie\\.js/",
    source: "https://github.com/assaf/zombie/blob/master/src/index.js"
  },
  {
    name: "SlimerJS",
    pattern: "\\bSlimerJS/",
    source: "https://docs.slimerjs.org/current/api/webpage.html"
  },
  // QtWebKit puts the application's name where a browser puts its own.
  {
    name: "wkhtmltopdf / wkhtmltoimage",
    pattern: "\\bwkhtmlto(?:pdf|image)\\b",
    source: "https://doc.qt.io/archives/qt-4.8/qwebpage.html#userAgentForUrl"
  },
  // Electron puts the application's name before Chrome/.
  {
    name: "Nightmare",
    pattern: "\\b[Nn]ightmare/",
    source: "https://www.electronjs.org/docs/latest/api/app#appuseragentfallback"
  }
]
