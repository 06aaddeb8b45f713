import { readdir, readFile, writeFile } from "node:fs/promises"
import * as path from "node:path"
import { promisify } from "node:util"
import { brotliCompress, constants, gzip } from "node:zlib"
import type { Plugin } from "vite"

const brotli = promisify(brotliCompress)
const gz = promisify(gzip)

/** What is worth compressing: text. Images the dashboard has are already compressed, or none. */
const COMPRESSIBLE = /\.(js|css|html|svg|json|txt)$/

/**
 * After the build, every text file gets a `.br` (brotli, best) and a `.gz` (gzip, best) beside it,
 * made once here rather than on every request: control serves the one the browser accepts
 * (control/dashboard/assets.ts). A compressed copy no smaller than the file is not written.
 */
export const precompress = async (dir: string): Promise<void> => {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  for (const entry of entries) {
    if (!entry.isFile() || !COMPRESSIBLE.test(entry.name)) continue
    const file = path.join(entry.parentPath, entry.name)
    const body = await readFile(file)
    const [br, gzipped] = await Promise.all([
      brotli(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
      gz(body, { level: 9 })
    ])
    if (br.length < body.length) await writeFile(`${file}.br`, br)
    if (gzipped.length < body.length) await writeFile(`${file}.gz`, gzipped)
  }
}

export const precompressPlugin = (): Plugin => {
  let outDir = ""
  return {
    name: "ricochet-precompress",
    apply: "build",
    configResolved: (config) => {
      outDir = path.resolve(config.root, config.build.outDir)
    },
    closeBundle: () => precompress(outDir)
  }
}
