# syntax=docker/dockerfile:1
# The dispatch-kubeflow worker image (docs/deploy.md):
#   docker build -t dispatch-kubeflow:0.1.0 .
#   docker run --rm dispatch-kubeflow:0.1.0 --help
# It runs `dispatch-kubeflow worker` by default, as the unprivileged `node` user, with the workflow
# bundle prebuilt at build time, so the worker never runs webpack and the root filesystem can be
# read-only. With DISPATCH_TRACING on, point DISPATCH_WORKFLOW_BUNDLE at
# /app/dist/workflow-bundle-tracing.js, which carries OpenTelemetry's workflow interceptors too.

# One Node for every stage, the release .node-version names: npm test runs the tests on it
# (scripts/ensure-node.sh), and package.json's engines starts there. Node 24, the LTS line supported
# longest (to 2028-04; 22's ends 2027-04, 20's ended 2026-04). Pinned by tag and by the digest of
# the tag's multi-platform index, so a re-pushed tag cannot change what is built; check a new pin
# with `docker buildx imagetools inspect node:<version>-bookworm-slim`.
ARG NODE_IMAGE=node:24.20.0-bookworm-slim@sha256:ba849c60be29959425b8734d57b8b4b7d56f98edd9504c9af091d5281095a71e

# Build: all dependencies, the TypeScript build (dist/), and the workflow bundle.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts/build-workflow-bundle.ts ./scripts/build-workflow-bundle.ts
RUN npm run build && npm run build:bundle

# Production dependencies only, with only this platform's native module of the Temporal SDK's
# bridge (linux x64 glibc for an amd64 build): it ships five platforms' builds and its Rust sources.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts/image/prune-node-modules.mjs ./scripts/image/prune-node-modules.mjs
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force && \
    node scripts/image/prune-node-modules.mjs node_modules

# Runtime: production dependencies, the compiled code and the bundle; nothing else
# (scripts/build-image-tree.sh makes the same tree without Docker, for the tests).
FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
# The heap limits of src/worker/heap.ts (WORKER_NODE_OPTIONS): without them Node sizes the heap from
# the host, not the container, and the worker keeps garbage up to that size (docs/performance.md).
ENV NODE_ENV=production \
    NODE_OPTIONS="--max-old-space-size=192 --max-semi-space-size=4" \
    DISPATCH_WORKFLOW_BUNDLE=/app/dist/workflow-bundle.js
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
# The base image's `node` user, by number, so that Kubernetes can verify runAsNonRoot.
USER 1000:1000
# Prometheus metrics: the Temporal SDK's (`--metrics`) and dispatch's (`--dispatch-metrics`); /readyz and /livez (`--health`).
EXPOSE 9464 9465 8081
ENTRYPOINT ["node", "bin/dispatch-kubeflow.js"]
CMD ["worker", "--config=/etc/dispatch-kubeflow/config.yaml"]
