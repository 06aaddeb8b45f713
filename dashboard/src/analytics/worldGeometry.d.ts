declare module "virtual:world-geometry" {
  /** The map's size in its own units (Equal Earth, made at build time: dashboard/build/worldGeometry.ts). */
  export const WIDTH: number
  export const HEIGHT: number
  /** ISO 3166-1 alpha-2 code, Natural Earth's name, SVG path. */
  export const COUNTRIES: ReadonlyArray<readonly [string, string, string]>
}
