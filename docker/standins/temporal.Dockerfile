# STAND-IN for temporalio/temporal:1.5.1 (docker/standins/build.sh), the Temporal CLI image: the
# same CLI (github.com/temporalio/cli v1.5.1, as npm run setup builds it) as its entrypoint.
FROM trawl-standin/debian:bookworm
COPY temporal /usr/local/bin/temporal
RUN useradd --uid 1000 --create-home temporal && mkdir /data && chown temporal /data
USER temporal
ENTRYPOINT ["temporal"]
