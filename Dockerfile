# syntax=docker/dockerfile:1
# One build stage installs every dependency once (the compiler is a dev dependency), compiles src/ to dist/ (and the
# sandbox workspace package, packages/sandbox, to its dist/) and prunes node_modules and packages/ to what the chosen
# variant loads; the runtime stage copies dist/, packages/ and node_modules and runs the compiled gateway as the
# unprivileged `node` user.
#
#   docker build -t multichain-gateway .                           # production: needs a config with upstreams
#   docker build --build-arg VARIANT=sandbox -t multichain-gateway .  # also the ledger sandbox and the EVM devnets
#
# BASE is any image with Node 20.19 or newer and a `node` user (uid 1000), as the official node images have.
ARG BASE=node:20-bookworm-slim

FROM ${BASE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# npm ci installs the workspaces the root manifest names, and needs their manifests to.
COPY packages/sandbox/package.json ./packages/sandbox/
# --ignore-scripts: nothing may download binaries at install time. The cache mount keeps downloaded packages between
# builds (and between the two variants' builds, which share this layer).
RUN --mount=type=cache,target=/root/.npm \
    npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY packages/sandbox/tsconfig.json ./packages/sandbox/
COPY packages/sandbox/src ./packages/sandbox/src
COPY src ./src
RUN npx tsc -b tsconfig.build.json && rm dist/.tsbuildinfo packages/sandbox/dist/.tsbuildinfo
COPY ops/container/prune.mjs /tmp/prune.mjs
# Declared here so that the install and compile layers above are the same for both variants.
ARG VARIANT=production
RUN node /tmp/prune.mjs "$VARIANT"

FROM ${BASE} AS runtime
WORKDIR /app
# Inside a container the gateway must listen beyond loopback; the embedded key store (when DATABASE_URL is unset)
# lives on the /data volume.
ENV HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/data
COPY --from=build /app/node_modules ./node_modules
COPY package.json ./
# Empty in the production variant; node_modules links @multichain-gateway/sandbox here in the sandbox variant.
COPY --from=build /app/packages ./packages
COPY --from=build /app/dist ./dist
# A named volume starts as a copy of this directory, owner included, so the gateway (not root) can write to it.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
# Liveness only: readiness (/readyz) depends on Redis, Postgres and upstreams, which a restart would not fix.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM drains in-flight requests (server.shutdownGraceMs) and flushes usage counts before exiting 0.
STOPSIGNAL SIGTERM
CMD ["node", "dist/main.js"]
