/** What a short link's address is built from: the scheme visitors use and, locally, the engine's port. */
export interface LinkBase {
  readonly linkScheme: "http" | "https"
  readonly linkPort: number | undefined
}

export const shortLinkUrl = (base: LinkBase, host: string, slug: string): string =>
  `${base.linkScheme}://${host}${base.linkPort === undefined ? "" : `:${base.linkPort}`}/${slug}`
