# dockwatch container images (docs/deploy.md): the hub (the default target) and the edge agent.
#
#   npm run build                                   # dist/ first: the images hold the production build only
#   docker build --target hub   -t dockwatch/hub .
#   docker build --target agent -t dockwatch/agent .
#   docker buildx build --platform linux/amd64,linux/arm64 --target hub -t REGISTRY/dockwatch/hub --push .
#
# The build context is the repository with dist/ built on the build machine (.dockerignore lets in
# dist/ and LICENSE, nothing else): dist/ is plain JavaScript with every npm dependency bundled and
# no native addon, so the same dist/ serves every platform and the build runs no npm and needs no
# network. No BuildKit feature is used (no RUN --mount, no heredoc): the classic builder builds it.

# Any image with Node 20.11 or later and a /bin/sh. The public default is the official slim image.
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS runtime
ARG VERSION=0.1.0
ARG REVISION=unknown
ARG SOURCE_URL=https://github.com/dockwatch/dockwatch
LABEL org.opencontainers.image.source="${SOURCE_URL}" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.vendor="the dockwatch authors"
WORKDIR /app
# uid/gid 1000 (the official image's `node` user): numeric, so a base image without that user works.
# /app/data (hub state) and /app/key (agent key) belong to it; named volumes copy that ownership.
RUN mkdir -p /app/data /app/key && chown 1000:1000 /app/data /app/key && chmod 0750 /app/data /app/key
COPY LICENSE dist/THIRD-PARTY-NOTICES.md /app/
COPY dist/chunks/ /app/chunks/
ENV NODE_ENV=production
USER 1000:1000
# Both programs drain on SIGTERM and exit 0 within 10 s: docker stop's default grace period.
STOPSIGNAL SIGTERM

FROM runtime AS agent
LABEL org.opencontainers.image.title="dockwatch edge agent"
COPY dist/agent.mjs dist/agent.mjs.map /app/
# The key (keygen writes it here), its update journal and its link status file. In listen mode there
# is no key: the journal of the updates it runs for the hub is named here, so a restarted agent
# settles one it cut short (docs/listen-mode.md).
ENV DD_AGENT_UPDATE_JOURNAL=/app/key/listen-updates.json
VOLUME ["/app/key"]
ENTRYPOINT ["node", "/app/agent.mjs"]
CMD ["--help"]
# Healthy while connected to the hub (edge-agent/src/cli/healthcheck.ts); the key path is the convention of docs/deploy.md.
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 \
  CMD ["node", "/app/agent.mjs", "--healthcheck", "--key", "/app/key/agent.key"]

FROM runtime AS hub
LABEL org.opencontainers.image.title="dockwatch hub"
COPY dist/hub.mjs dist/hub.mjs.map /app/
COPY dist/ui/ /app/ui/
# Inside a container loopback is the container's own: the hub listens on every address of the
# container, and what reaches it is decided by `-p` (docs/deploy.md; decisions §4 for bare metal).
ENV DD_STORE_PATH=/app/data \
    DD_SERVER_HOST=0.0.0.0 \
    DD_SERVER_PORT=3000
VOLUME ["/app/data"]
EXPOSE 3000
# `docker run --rm -v /var/run/docker.sock:/var/run/docker.sock dockwatch/hub check [--json] …` runs
# the one-shot check instead of the server (docs/sources.md "One command"): hub.mjs hands `check` to it.
ENTRYPOINT ["node", "/app/hub.mjs"]
HEALTHCHECK --interval=30s --timeout=10s --start-period=20s --retries=3 \
  CMD ["node", "/app/hub.mjs", "--healthcheck"]
