/**
 * One copy of each string that many cached values share (a workspace id in every link of the
 * workspace): `intern(text)` returns the copy kept from the first call with equal text. Bounded:
 * past `max` distinct strings it starts over, which only costs duplicates again.
 */
export const stringInterner = (max: number) => {
  const interned = new Map<string, string>()
  return (text: string): string => {
    const known = interned.get(text)
    if (known !== undefined) return known
    if (interned.size >= max) interned.clear()
    interned.set(text, text)
    return text
  }
}
