# The waf proxy. Build from the repository root:
#   docker build -t waf .
#   docker run --rm -p 3030:3030 -e UPSTREAM=http://app:8080 waf
# The image holds the shipped rules (rules/, crs-942/) and config/waf.yml; mount your own over /srv/waf/config or
# the rule directories to change them (both are watched and hot-reloaded).
FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p waf-runtime --bin waf

FROM debian:bookworm-slim
# Least privilege: an unprivileged user, nothing in the image it can write to but /tmp.
RUN useradd --system --no-create-home --shell /usr/sbin/nologin waf
WORKDIR /srv/waf
COPY --from=build /src/target/release/waf /usr/local/bin/waf
COPY config ./config
COPY rules ./rules
COPY crs-942 ./crs-942
USER waf
EXPOSE 3030
# waf drains requests in flight on SIGTERM (docker stop); give it the grace period it is configured with.
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=2s CMD ["/bin/bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/3030 && printf 'GET /health HTTP/1.0\\r\\n\\r\\n' >&3 && grep -q '\"status\":\"ok\"' <&3"]
ENTRYPOINT ["/usr/local/bin/waf"]
