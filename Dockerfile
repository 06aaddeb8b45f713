# Ricochet in a container. One image serves every role:
#   docker run -v ricochet-data:/var/lib/ricochet --stop-timeout 45 IMAGE
#                                              control and engine in one process (npm start)
#   docker run IMAGE dist/ricochet.js control  the control plane alone
#   docker run IMAGE dist/ricochet.js engine   a redirect engine alone
#   docker run IMAGE dist/ricochet.js workspace create --name NAME --plan pro --json
# Configuration comes from the environment, the variables of docs/configuration.md only.
# compose.yaml runs PostgreSQL, NATS, one control and two engines from this image;
# test/unit/compose.test.ts checks both files against the configuration reference.

# Node 20 on Debian 12 (bookworm), and nothing newer: the uWebSockets.js package we use
# (@trufflesuite/uws-js-unofficial 20.30) ships binaries for Node 16, 18 and 20 only (ABI 93,
# 108, 115) and they need glibc 2.36 or newer, which bookworm has. On another Node the package
# does not fail: it warns and falls back to a much slower implementation written in JavaScript.
# Pinned by digest (the multi-platform index of node:20-bookworm-slim, Node 20.20.2, the last
# Node 20 build): a rebuild gets the same base. To move it deliberately:
#   docker buildx imagetools inspect node:20-bookworm-slim    (the "Digest:" line)
ARG NODE_IMAGE=node:20-bookworm-slim@sha256:2cf067cfed83d5ea958367df9f966191a942351a2df77d6f0193e162b5febfc0

# --- dependencies: production packages only, exactly as locked -------------------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY patches ./patches
# The processes run the JavaScript of the build stage (dist/) and load from here the packages kept
# out of its bundles (scripts/build.ts); tsx and esbuild are development packages, not installed.
# Install scripts are skipped: every native part we load (uWebSockets.js, DuckDB, xxhash,
# msgpackr-extract) comes prebuilt in an npm package, and the optional WebSocket
# helpers whose scripts would compile (bufferutil, utf-8-validate) are never loaded: no compiler
# is needed.
# Our fixes to installed packages (patches/apply.mjs, npm's postinstall elsewhere) are applied
# by hand for that reason.
# uWebSockets.js carries binaries for every platform and Node version (over 100 MB): keep the
# one this image loads, and fail the build if there is none, rather than run the slow fallback.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && node patches/apply.mjs \
 && npm cache clean --force \
 && uws="uws_$(node -p 'process.platform + "_" + process.arch + "_" + process.versions.modules').node" \
 && test -f "node_modules/uWebSockets.js/binaries/$uws" \
 && find node_modules/uWebSockets.js -name 'uws_*.node' ! -path "*/binaries/$uws" -delete

# --- build: the dashboard and the servers, built with the development packages as npm ci's ----
# prepare step builds them (patched packages as postinstall leaves them); only the output is kept.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --ignore-scripts --no-audit --no-fund \
 && node patches/apply.mjs
COPY tsconfig.json main.ts config.ts ./
COPY scripts ./scripts
COPY cli ./cli
COPY dashboard ./dashboard
COPY control ./control
COPY engine ./engine
COPY shared ./shared
RUN npx vite build dashboard \
 && npx tsx scripts/build.ts

# --- runtime: the packages and the built files, nothing else -----------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    RICOCHET_DATA_DIR=/var/lib/ricochet
WORKDIR /app
# Owned by root and not writable by the user the server runs as.
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
# The processes and their worker threads (dist/main.js, dist/ricochet.js and what they load), and
# the dashboard control serves at /.
COPY --from=build /app/dist ./dist
COPY --from=build /app/dashboard/dist ./dashboard/dist
# The health check below: plain JavaScript that needs nothing built.
COPY cli/healthcheck.mjs ./cli/healthcheck.mjs
# The data directory (embedded database, admin channel) and the default click and spool
# directories, owned by the unprivileged `node` user of the base image. A new named volume
# mounted on one of these starts with this owner.
RUN mkdir -p /var/lib/ricochet/clicks /var/lib/ricochet/spool \
 && chown -R node:node /var/lib/ricochet
# A volume, so the embedded database and the clicks outlive the container even when no volume
# is named (`docker run -v ricochet-data:/var/lib/ricochet` names one: docs/operations.md, Containers).
# Declared after the directory is made and owned: later build steps could not change it.
VOLUME ["/var/lib/ricochet"]
USER node

# RICOCHET_API_PORT and RICOCHET_ENGINE_PORT, at their defaults.
EXPOSE 3000 8080

# Readiness of the role this container runs (cli/healthcheck.mjs reads PID 1's command line):
# control's /readyz on RICOCHET_API_PORT, an engine's on its operator port
# (RICOCHET_ENGINE_ADMIN_PORT), both for npm start's process. Plain JavaScript, no tsx.
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "cli/healthcheck.mjs"]

# Node is PID 1: Effect's runtime handles SIGTERM itself (servers stop, in-flight requests are
# answered, clicks are flushed), so no init process is needed.
ENTRYPOINT ["node"]
CMD ["dist/main.js"]
