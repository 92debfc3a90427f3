# syntax=docker/dockerfile:1
#
# PassServer container image.
#
#   docker build -t pass-server .
#   docker run --rm -p 127.0.0.1:8080:8080 --env-file .env \
#       -v "$PWD/Certificates:/app/Certificates:ro" pass-server
#
# Two stages: the official Swift image on Debian 12 (bookworm) compiles a release build, and a
# bookworm-slim image runs it with nothing but the shared libraries it links against. The build
# uses --static-swift-stdlib: the Swift runtime, Foundation (with its ICU data) and Dispatch are
# linked into the binary, so the runtime image needs no libswift*.so files copied out of the
# toolchain image and cannot end up with runtime libraries that differ from the compiler that
# built the binary. What remains dynamic is glibc, libstdc++/libgcc_s (which the Swift runtime
# itself needs) and the seven C libraries, all from Debian's own packages.

ARG SWIFT_IMAGE=swift:6.3-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

# ---------------------------------------------------------------------------------------------
FROM ${SWIFT_IMAGE} AS build

RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get update -q \
    && apt-get install -y -q --no-install-recommends \
        pkg-config libmicrohttpd-dev libpq-dev libsqlite3-dev libzip-dev zlib1g-dev libssl-dev libnghttp2-dev libcurl4-openssl-dev libqrencode-dev libvips-dev libzbar-dev \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /src
# SwiftPM checks that every target's folder exists, test targets included, so Tests/ comes along
# even though only the server is built.
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests

RUN swift build -c release --product pass-server --static-swift-stdlib \
    && install -D -m 0755 "$(swift build -c release --show-bin-path)/pass-server" /staging/pass-server \
    && install -D -m 0755 /usr/libexec/swift/linux/swift-backtrace-static /staging/swift-backtrace-static

# ---------------------------------------------------------------------------------------------
FROM ${RUNTIME_IMAGE} AS runtime

# Runtime libraries only (no -dev packages, no compiler). ca-certificates verifies the TLS
# certificates of APNs and of the SMTP server, tzdata gives events their time zones, curl serves the
# HEALTHCHECK below.
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get update -q \
    && apt-get install -y -q --no-install-recommends \
        libmicrohttpd12 libpq5 libsqlite3-0 libzip4 zlib1g libssl3 libnghttp2-14 libcurl4 libqrencode4 libvips42 libzbar0 libglib2.0-0 libstdc++6 \
        ca-certificates tzdata curl \
    && rm -rf /var/lib/apt/lists/*

# A fixed numeric uid/gid so that orchestrators can verify "runs as non-root" and operators can
# grant read access to the mounted key files (chgrp 10001 Certificates/*.key; chmod 640).
RUN groupadd --system --gid 10001 passserver \
    && useradd --system --uid 10001 --gid passserver --home-dir /app --no-create-home \
        --shell /usr/sbin/nologin passserver

WORKDIR /app
COPY --from=build /staging/pass-server /usr/local/bin/pass-server
COPY --from=build /staging/swift-backtrace-static /usr/local/libexec/swift-backtrace-static
# Templates are baked in so the image works on its own; docker-compose.yml mounts ./Passes over
# them read-only so that templates can change without a rebuild.
COPY Passes ./Passes
# The API description served at /openapi.yaml.
COPY openapi.yaml ./openapi.yaml
# Certificates/ is always mounted (never baked in: keys stay out of images and registries).
# .data/ holds the SQLite database when DATABASE_URL is not set: mount a volume there.
RUN mkdir -p /app/Certificates /app/.data && chown passserver:passserver /app/.data

# Inside the container the server must listen on the container's own interface; the host port
# mapping (127.0.0.1:8080:8080 in docker-compose.yml) decides who can reach it.
ENV HTTP_HOST=0.0.0.0 \
    HTTP_PORT=8080 \
    SWIFT_BACKTRACE=enable=yes,sanitize=yes,threads=all,images=all,interactive=no,swift-backtrace=/usr/local/libexec/swift-backtrace-static

USER 10001:10001
EXPOSE 8080
# SIGTERM makes the server stop accepting, drain in-flight requests and pushes, then exit.
STOPSIGNAL SIGTERM

HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD curl -fsS --max-time 4 "http://127.0.0.1:${HTTP_PORT:-8080}/healthz" >/dev/null || exit 1

ENTRYPOINT ["pass-server"]
CMD ["serve"]
