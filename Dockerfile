# One image for the API and the worker (docker-compose.yml picks the command).
FROM node:20-bookworm-slim

# Debian's Chromium for the browser engine (Playwright's download is not used), plus fonts so
# pages render text in screenshots and layout-dependent extraction, and uBlock Origin's package
# for the filter lists `blockAds` uses (EasyList, EasyPrivacy; see scraper/ad-block/).
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium fonts-liberation ca-certificates webext-ublock-origin-chromium \
 && rm -rf /var/lib/apt/lists/*

ENV NODE_ENV=production \
    CHROMIUM_PATH=/usr/bin/chromium \
    HOST=0.0.0.0 \
    PORT=3002

WORKDIR /app
COPY package.json package-lock.json ./
# tsx is a runtime dependency: the services run their TypeScript sources directly.
RUN npm ci --omit=dev && npm cache clean --force
COPY . .

USER node
EXPOSE 3002
# node itself, not `npm run api`: npm and its `sh -c` do not pass SIGTERM on, so `docker stop`
# would end in SIGKILL instead of a graceful shutdown.
CMD ["node", "--import", "tsx", "api/server.ts"]
