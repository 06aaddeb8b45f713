/** The characters of a slug (docs/decisions.md#identifiers-and-slugs): letters, digits, `-` and `_`, as a regex class body. */
export const SLUG_CHARS = "A-Za-z0-9_-"
export const SLUG_PATTERN = new RegExp(`^[${SLUG_CHARS}]{1,190}$`)
