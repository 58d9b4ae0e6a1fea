# storagebench: one image with storagebench-controller and
# storagebench-runner (and kubectl-storagebench when the tree builds it).
#
#   docker build -t registry.example.com/storagebench:0.1.0 .
#   docker push registry.example.com/storagebench:0.1.0
#   helm install storagebench charts/storagebench -n storagebench-system --create-namespace \
#       --set image.repository=registry.example.com/storagebench
#
# Without a registry or Docker, `make image` builds the same image from
# Debian's packages (scripts/build-image.sh). See docs/getting-started.md.

ARG DEBIAN_IMAGE=debian:12-slim

# ---- build: compile the binaries with Debian's toolchain and -dev packages
FROM ${DEBIAN_IMAGE} AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends \
        gcc make pkg-config libc6-dev ca-certificates \
        libcurl4-openssl-dev libjansson-dev libyaml-dev libssl-dev \
        liburing-dev libmicrohttpd-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# start from a clean tree whatever the build context held
RUN rm -rf build bin \
    && make -j"$(nproc)" all \
    && strip bin/*

# ---- runtime: Debian 12 slim with the runtime libraries only
FROM ${DEBIAN_IMAGE}
RUN apt-get update \
    && apt-get install -y --no-install-recommends \
        libcurl4 libjansson4 libyaml-0-2 libssl3 liburing2 libmicrohttpd12 \
        ca-certificates tzdata \
    && rm -rf /var/lib/apt/lists/* /var/cache/apt/* /usr/share/doc/* /usr/share/man/* \
    && echo 'storagebench:x:65532:65532:storagebench:/home/storagebench:/usr/sbin/nologin' >>/etc/passwd \
    && echo 'storagebench:x:65532:' >>/etc/group \
    && mkdir -p /home/storagebench \
    && chown 65532:65532 /home/storagebench
COPY --from=build /src/bin/ /usr/local/bin/
ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
LABEL org.opencontainers.image.title="storagebench" \
      org.opencontainers.image.description="Kubernetes storage-class benchmarks: controller and fio-compatible runner" \
      org.opencontainers.image.licenses="MIT"
USER 65532:65532
WORKDIR /
CMD ["/usr/local/bin/storagebench-controller"]
