/**
 * The block a start ends with: what to open and how to get in. Callers pass lines so another part
 * (the sign-in password, say) adds its own without reformatting the rest.
 */
export const startBlock = (title: string, lines: ReadonlyArray<string>): string => {
  const rule = "─".repeat(Math.min(72, Math.max(title.length, ...lines.map((line) => line.length)) + 2))
  return ["", rule, ` ${title}`, rule, ...lines.map((line) => ` ${line}`), rule, ""].join("\n")
}

/** What a browser on this machine can reach for a listen address (0.0.0.0 and :: mean every interface). */
export const reachableHost = (listenHost: string): string =>
  listenHost === "0.0.0.0" || listenHost === "::" ? "localhost" : listenHost.includes(":") ? `[${listenHost}]` : listenHost
