# One image for the API, the workers, migrations and the admin CLI (docker-compose.yml picks the
# command). The build stage compiles to dist/ (npm run build: JavaScript and the prebuilt workflow
# bundle); the runtime stage has production dependencies only and runs dist/ with plain node.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM node:24-bookworm-slim
# Debian's Chromium for the browser engine (Playwright's download is not used), fonts so pages
# render text in screenshots, and uBlock Origin's package for the filter lists `blockAds` uses.
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium fonts-liberation ca-certificates webext-ublock-origin-chromium \
 && rm -rf /var/lib/apt/lists/*
RUN useradd --system --uid 10001 --create-home --shell /usr/sbin/nologin trawl
ENV NODE_ENV=production \
    CHROMIUM_PATH=/usr/bin/chromium \
    HOST=0.0.0.0 \
    PORT=3002
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
USER trawl
EXPOSE 3002
# The API's health (Postgres, Temporal and a polling worker). Worker containers override it in
# docker-compose.yml with their own /metrics.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node itself, not `npm run api`: npm and its `sh -c` do not pass SIGTERM on, so `docker stop`
# would end in SIGKILL instead of a graceful shutdown (the worker drains its pages for up to 20 s).
CMD ["node", "dist/api/server.js"]
