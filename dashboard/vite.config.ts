import { defineConfig } from "vite"
import { precompressPlugin } from "./build/precompress.ts"
import { worldGeometryPlugin } from "./build/worldGeometry.ts"

/**
 * The dashboard is built into dashboard/dist, which control serves at `/` (control/dashboard).
 * Vite compiles TSX itself (tsconfig's "jsx": "react-jsx"); the API declaration it imports from
 * control/ is browser-safe by rule. Two plugins of our own: the world map's geometry, made from
 * Natural Earth at build time, and brotli and gzip copies of every text file.
 * `npm run dashboard:dev` proxies /v1 to a control on port 3000 while the pages are worked on.
 */
export default defineConfig({
  root: import.meta.dirname,
  base: "/",
  plugins: [worldGeometryPlugin(), precompressPlugin()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // Nothing inlined as data: URLs and no module-preload polyfill: the CSP allows only files of this origin.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 1500
  },
  server: { proxy: { "/v1": "http://127.0.0.1:3000" } }
})
