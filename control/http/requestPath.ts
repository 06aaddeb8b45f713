/**
 * Whether the router can read a request target's path. It decodes the path (up to the first `?`,
 * `;` or `#`) with decodeURI and, when that throws, finds no route at all: Effect's router then
 * answers an empty 404. Such a path is answered by the pipeline instead.
 */
export const isDecodablePath = (url: string): boolean => {
  const end = url.search(/[?;#]/)
  try {
    decodeURI(end === -1 ? url : url.slice(0, end))
    return true
  } catch {
    return false
  }
}
