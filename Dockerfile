# syntax=docker/dockerfile:1
# One image for every Switchboard process. The process is chosen by the command, a path relative
# to /app run by node itself (PID 1, so it receives SIGTERM and shuts down cleanly):
#   docker run switchboard services/messaging/dist/main.js
#   docker run switchboard packages/provider-simulator/dist/main.js
# The default command starts the gateway.

ARG NODE_IMAGE=node:24-bookworm-slim

# --- build: every dependency, then `tsc -b` to each workspace's dist/ --------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
# Manifests first, so the dependency layer is reused until a package.json or the lockfile changes.
COPY package.json package-lock.json ./
COPY packages/contracts/package.json packages/contracts/
COPY packages/service-kit/package.json packages/service-kit/
COPY packages/provider-simulator/package.json packages/provider-simulator/
COPY packages/console/package.json packages/console/
COPY services/gateway/package.json services/gateway/
COPY services/messaging/package.json services/messaging/
COPY services/contacts/package.json services/contacts/
COPY services/campaigns/package.json services/campaigns/
COPY services/webhooks/package.json services/webhooks/
COPY services/inbound/package.json services/inbound/
# `npm install`, not `npm ci`: the lockfile is written without other platforms' optional
# packages (see scripts/ensure-deps.sh), which `npm ci` refuses.
RUN --mount=type=cache,target=/root/.npm npm install --no-audit --no-fund
COPY tsconfig.base.json tsconfig.json ./
COPY packages packages
COPY services services
# The console's static bundle (packages/console/dist) is built here too; the gateway serves it.
RUN npx tsc -b \
  && npm run build -w @switchboard/console \
  && npm prune --omit=dev --no-audit --no-fund \
  && find packages services -mindepth 2 -maxdepth 2 \
       \( -name src -o -name test -o -name bench -o -name tsconfig.json \) -exec rm -rf {} + \
  && find packages services -name '*.tsbuildinfo' -delete

# --- runtime: production dependencies and compiled code only, as a non-root user ----------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0
WORKDIR /app
# Owned by root and not writable by the process; with Kubernetes' readOnlyRootFilesystem only
# /tmp (an emptyDir) is writable.
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/packages packages
COPY --from=build /app/services services
# The image's `node` user, by number so that Kubernetes' runAsNonRoot can verify it.
USER 1000:1000
EXPOSE 8080
ENTRYPOINT ["node"]
CMD ["services/gateway/dist/main.js"]
