// The module hooks of noTypeScript.mjs.
const typeScript = (url) => /\.[cm]?tsx?$/.test(new URL(url).pathname) || url.includes("/node_modules/tsx/")

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context)
  if (typeScript(resolved.url)) throw new Error(`TypeScript loaded by a built process: ${resolved.url} (imported by ${context.parentURL ?? "the command line"})`)
  return resolved
}
