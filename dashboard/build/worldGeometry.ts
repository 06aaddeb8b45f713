import { readFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { feature } from "topojson-client"
import type { Plugin } from "vite"

/**
 * The world map of the analytics pages, made at build time from Natural Earth's 1:110m countries
 * (public domain, packaged as TopoJSON by world-atlas): each country an SVG path in the Equal Earth
 * projection, keyed by its ISO 3166-1 alpha-2 code (the code the click files record). Served as
 * a module of the dashboard's own chunk, loaded only by the analytics pages: no request to another
 * host, no geometry library in the browser.
 */
const VIRTUAL = "virtual:world-geometry"
const RESOLVED = "\0" + VIRTUAL

export const WIDTH = 1000

// Equal Earth (Šavrič, Patterson, Jenny 2018).
const A1 = 1.340264, A2 = -0.081106, A3 = 0.000893, A4 = 0.003796, M = Math.sqrt(3) / 2
const project = (lon: number, lat: number): [number, number] => {
  const l = (lon * Math.PI) / 180
  const t = Math.asin(M * Math.sin((lat * Math.PI) / 180))
  const t2 = t * t, t6 = t2 * t2 * t2
  return [(l * Math.cos(t)) / (M * (A1 + 3 * A2 * t2 + t6 * (7 * A3 + 9 * A4 * t2))), t * (A1 + A2 * t2 + t6 * (A3 + A4 * t2))]
}
const [EDGE_X] = project(180, 0)
const [, EDGE_Y] = project(0, 90)
const SCALE = WIDTH / (2 * EDGE_X)
export const HEIGHT = Math.round(2 * EDGE_Y * SCALE)

const point = ([lon, lat]: Array<number>) => {
  const [x, y] = project(lon, lat)
  return `${((x + EDGE_X) * SCALE).toFixed(1)} ${((EDGE_Y - y) * SCALE).toFixed(1)}`
}

type Ring = Array<Array<number>>
const ringPath = (ring: Ring) => `M${ring.map(point).join("L")}Z`

/** Names Natural Earth gives no numeric code. */
const UNCODED: Record<string, string> = { Kosovo: "XK", "N. Cyprus": "CY", Somaliland: "SO" }

export const worldGeometry = async (): Promise<Array<[string, string, string]>> => {
  const require = createRequire(import.meta.url)
  const countries = (await import("i18n-iso-countries")).default
  const topology = JSON.parse(await readFile(require.resolve("world-atlas/countries-110m.json"), "utf8"))
  const collection = feature(topology, topology.objects.countries) as unknown as {
    features: Array<{ id?: string; properties: { name: string }; geometry: { type: string; coordinates: unknown } | null }>
  }
  const out: Array<[string, string, string]> = []
  for (const f of collection.features) {
    if (f.geometry === null || f.properties.name === "Antarctica") continue
    const code = f.id === undefined ? UNCODED[f.properties.name] : countries.numericToAlpha2(f.id)
    if (code === undefined) continue
    const polygons = (f.geometry.type === "Polygon" ? [f.geometry.coordinates] : f.geometry.coordinates) as Array<Array<Ring>>
    const d = polygons.flatMap((rings) => rings.map(ringPath)).join("")
    const same = out.find(([c]) => c === code)
    if (same) same[2] += d
    else out.push([code, f.properties.name, d])
  }
  return out
}

export const worldGeometryPlugin = (): Plugin => ({
  name: "ricochet-world-geometry",
  resolveId: (id) => (id === VIRTUAL ? RESOLVED : undefined),
  load: async (id) => {
    if (id !== RESOLVED) return undefined
    const shapes = await worldGeometry()
    return `export const WIDTH = ${WIDTH}\nexport const HEIGHT = ${HEIGHT}\nexport const COUNTRIES = ${JSON.stringify(shapes)}\n`
  }
})
