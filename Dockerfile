# The service's image: one image for the API (`node scripts/api.ts`, the default command) and the
# worker (`node scripts/worker.ts`). Runs as a non-root user; carries bubblewrap, socat and
# Chromium so workers can run sandboxed agents and browser tools. See docs/deploy.md and
# deploy/compose.yaml.
FROM node:24-bookworm-slim AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
# The typed client and the lint plugins are workspaces of the repository (npm ci links them):
# their manifests are enough here (lint/'s packages are development ones, left out by --omit=dev).
COPY client/package.json ./client/package.json
COPY lint/package.json ./lint/package.json
# patch-package applies patches/ on install (a driver fix: docs/decisions/postgres-driver-patch.md).
COPY patches ./patches
RUN npm ci --omit=dev --no-audit --no-fund

# The browser console's bundle (console/dist): built with the development dependencies (Vite,
# React), which the running image does not carry.
FROM node:24-bookworm-slim AS console
WORKDIR /app
COPY package.json package-lock.json ./
COPY client/package.json ./client/package.json
COPY lint/package.json ./lint/package.json
COPY patches ./patches
RUN npm ci --no-audit --no-fund
COPY . .
RUN node scripts/build-console.ts

FROM node:24-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap socat chromium ca-certificates tini \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --user-group --home-dir /var/lib/agent-runtime --create-home svc
WORKDIR /app
COPY --from=dependencies /app/node_modules ./node_modules
COPY --chown=root:root . .
COPY --from=console --chown=root:root /app/console/dist ./console/dist
USER svc
ENV NODE_ENV=production \
    SVC_ENVIRONMENT=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    SVC_DATA_DIR=/var/lib/agent-runtime
EXPOSE 8080
# GET /readyz of the API (PORT) or the worker (SVC_WORKER_METRICS_PORT): scripts/healthcheck.ts.
HEALTHCHECK --interval=10s --timeout=6s --start-period=60s --retries=3 CMD ["node", "scripts/healthcheck.ts"]
ENTRYPOINT ["/usr/bin/tini", "--", "node"]
CMD ["scripts/api.ts"]
