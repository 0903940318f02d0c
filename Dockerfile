# Container images of the two programs, from the repository root:
#   docker build -t waf .                      # the proxy (the last stage is the default target)
#   docker build --target auth -t auth .       # the auth service
#   docker run --rm -p 3030:3030 -e UPSTREAM=http://app:8080 waf
# The base images are build arguments so they can be swapped (a mirror, a hardened base, a pinned digest):
#   --build-arg BUILD_IMAGE=...  an image with Rust (or, as CI does, plain Debian with the host's toolchain and
#                                cargo cache mounted: see .ci/images and docs/deploy.md)
#   --build-arg RUNTIME_IMAGE=...  Debian bookworm or a derivative (the binaries link against its glibc)
ARG BUILD_IMAGE=docker.io/library/rust:1.95-bookworm
ARG RUNTIME_IMAGE=docker.io/library/debian:bookworm-slim

FROM ${BUILD_IMAGE} AS build
# The rust image's layout; CI mounts the host's rustup and cargo homes at these paths instead.
ENV RUSTUP_HOME=/usr/local/rustup CARGO_HOME=/usr/local/cargo \
    PATH=/usr/local/cargo/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# C parts: aws-lc and SQLite need a compiler (a plain Debian base has none); the auth service's SAML signatures
# bind Debian's xmlsec and libxml2 (bindgen needs libclang) and link OpenSSL.
RUN apt-get update -qq \
    && apt-get install -y -qq --no-install-recommends gcc libc6-dev pkg-config libssl-dev libxml2-dev \
       libxmlsec1-dev libclang-dev clang \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# The target directory is /cache/target so a build can mount a persistent one there (podman build -v, or a
# BuildKit cache mount): the binaries are copied out of it because a mounted directory is not part of the image.
RUN CARGO_TARGET_DIR=/cache/target cargo build --release --locked -p waf-runtime --bin waf -p auth --bin auth \
    && mkdir -p /out && cp /cache/target/release/waf /cache/target/release/auth /out/

# The auth service. On the embedded SQLite store by default (DATA_DIR, a volume); any SQL_* variable selects
# PostgreSQL. Secrets (COOKIE_SESSION_SECRET, JWT_SECRET, SQL_PASSWORD) come from the environment, never the image.
FROM ${RUNTIME_IMAGE} AS auth
# xmlsec with its OpenSSL backend (and libxml2) verify SAML signatures; ca-certificates for HTTPS to providers.
RUN apt-get update -qq \
    && apt-get install -y -qq --no-install-recommends libxmlsec1-openssl ca-certificates \
    && rm -rf /var/lib/apt/lists/*
# Least privilege: an unprivileged user that can write only its data directory (and /tmp).
RUN useradd --system --no-create-home --shell /usr/sbin/nologin auth \
    && mkdir -p /var/lib/auth && chown auth /var/lib/auth
COPY --from=build /out/auth /usr/local/bin/auth
ENV DATA_DIR=/var/lib/auth BIND_ADDRESS=0.0.0.0 PORT=3000
VOLUME /var/lib/auth
USER auth
EXPOSE 3000
# `auth -c URL` exits 0 when the service answers (200-499), so the image needs no curl.
HEALTHCHECK --interval=10s --timeout=3s CMD ["/usr/local/bin/auth", "-c", "http://127.0.0.1:3000/auth/healthz"]
ENTRYPOINT ["/usr/local/bin/auth"]

# The waf proxy. The image holds the shipped rules (rules/, crs-942/, and the rest of the CRS in crs/ for
# `rules.directories: [rules, crs-942, crs]`) and config/waf.yml; mount your own over
# /srv/waf/config or the rule directories (or point rules.artifact at a mounted artifact) to change them: both
# are watched and hot-reloaded.
FROM ${RUNTIME_IMAGE} AS waf
# Least privilege: an unprivileged user, who can write to nothing in the image but /tmp, its configuration (the
# admin panel saves its changes to config/waf.yml) and the panel's data (/var/lib/waf); the rules stay root's.
RUN useradd --system --no-create-home --shell /usr/sbin/nologin waf \
    && mkdir -p /var/lib/waf/admin && chown -R waf /var/lib/waf
WORKDIR /srv/waf
COPY --from=build /out/waf /usr/local/bin/waf
COPY --chown=waf config ./config
COPY rules ./rules
COPY crs-942 ./crs-942
COPY crs ./crs
# The admin panel is on, on its own port: the first admin needs the one-time "admin setup token:" of the log.
ENV ADMIN_ENABLED=true ADMIN_LISTEN_ADDRESS=0.0.0.0 ADMIN_DATA_DIR=/var/lib/waf/admin
VOLUME ["/var/lib/waf", "/srv/waf/config"]
USER waf
EXPOSE 3030 8888
# waf drains requests in flight on SIGTERM (docker stop); give it the grace period it is configured with.
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=2s CMD ["/bin/bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/3030 && printf 'GET /health HTTP/1.0\\r\\n\\r\\n' >&3 && grep -q '\"status\":\"ok\"' <&3"]
ENTRYPOINT ["/usr/local/bin/waf"]
