/**
 * How the link unfurls in a chat or a feed. The image itself is not fetched: the dashboard makes
 * no request to another host, so its place shows where it would come from.
 */
export const OgCard = ({ title, description, imageUrl, destination }: { title: string; description: string; imageUrl: string; destination: string }) => {
  const host = (() => {
    try {
      return new URL(destination).host
    } catch {
      return ""
    }
  })()
  const imageHost = (() => {
    try {
      return new URL(imageUrl).host
    } catch {
      return ""
    }
  })()
  return (
    <figure className="og-card" aria-label="Preview of the social card">
      <div className="og-image">{imageUrl ? `Image from ${imageHost || "an invalid URL"}` : "No image"}</div>
      <figcaption>
        <small>{host || "destination"}</small>
        <strong>{title || "Title of the destination page"}</strong>
        <span>{description || "Its description appears here."}</span>
      </figcaption>
    </figure>
  )
}
