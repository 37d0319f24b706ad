# STAND-IN for postgres:15-bookworm (docker/standins/build.sh): Debian's PostgreSQL 15 and an
# entrypoint doing what the official one does with POSTGRES_USER, POSTGRES_PASSWORD and POSTGRES_DB.
FROM trawl-standin/debian:bookworm
COPY 99host-apt /etc/apt/apt.conf.d/99host-apt
RUN apt-get update && apt-get install -y --no-install-recommends postgresql-15 && rm -rf /var/lib/apt/lists/*
COPY postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
VOLUME /var/lib/postgresql/data
EXPOSE 5432
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["postgres"]
