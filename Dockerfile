# storagebench: one image with storagebench-controller and
# storagebench-runner, static, on nothing (FROM scratch): the same layout
# `make image` writes (scripts/build-image.sh --rootfs: the two binaries in
# /usr/local/bin, a CA bundle, the zone files, /etc/passwd with user 65532;
# no shell, no package manager), for linux/amd64 and linux/arm64:
#
#   docker buildx build --platform linux/amd64,linux/arm64 \
#       -t registry.example.com/storagebench:0.1.0 --push .
#   helm install storagebench charts/storagebench -n storagebench-system --create-namespace \
#       --set image.repository=registry.example.com/storagebench
#
# The build stage runs on the build machine's platform and cross-compiles
# for arm64, as `make image` does. Without Docker (there is no container
# engine on the project's machines), `make image` builds the image index
# itself: build/image/storagebench-<version>.oci.tar. See docs/getting-started.md.

ARG DEBIAN_IMAGE=debian:12-slim

# ---- build: the binaries, and the image's root as a directory
FROM --platform=$BUILDPLATFORM ${DEBIAN_IMAGE} AS build
ARG TARGETARCH
# scripts/deps/build.list, and for arm64 the cross compiler of scripts/deps/arm64.list
RUN apt-get update \
    && apt-get install -y --no-install-recommends \
        gcc make pkg-config libc6-dev \
        libcurl4-openssl-dev libjansson-dev libyaml-dev libssl-dev liburing-dev libmicrohttpd-dev \
        dpkg-dev libnghttp2-dev zlib1g-dev ca-certificates tzdata \
        gcc-aarch64-linux-gnu libc6-dev-arm64-cross \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# start from a clean tree whatever the build context held; get-minlibs.sh
# downloads Debian's curl and libmicrohttpd sources (and, for arm64, the
# arm64 -dev packages) into its cache
RUN rm -rf build bin \
    && make -j"$(nproc)" image-bins-${TARGETARCH} \
    && bash scripts/build-image.sh --arch=${TARGETARCH} --rootfs=/rootfs

# ---- runtime: nothing but that root
FROM scratch
COPY --from=build /rootfs/ /
# COPY makes everything root's: the user's home is its own, as in make image's
COPY --from=build --chown=65532:65532 /rootfs/home/storagebench/ /home/storagebench/
ENV PATH=/usr/local/bin SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
LABEL org.opencontainers.image.title="storagebench" \
      org.opencontainers.image.description="Kubernetes storage benchmarks: storagebench-controller and storagebench-runner" \
      org.opencontainers.image.licenses="MIT"
USER 65532:65532
WORKDIR /
CMD ["/usr/local/bin/storagebench-controller"]
