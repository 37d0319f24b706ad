# STAND-IN for node:24-bookworm-slim (docker/standins/build.sh): Node and npm in /usr/local, as there.
FROM trawl-standin/debian:bookworm
COPY host-ca-bundle.crt /etc/ssl/certs/host-ca-bundle.crt
COPY 99host-apt /etc/apt/apt.conf.d/99host-apt
COPY node/bin/node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node
# The host's CAs, which ca-certificates' own bundle (rebuilt by any apt-get install) would drop.
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/host-ca-bundle.crt \
    NPM_CONFIG_CAFILE=/etc/ssl/certs/host-ca-bundle.crt
CMD ["node"]
