# syntax=docker/dockerfile:1
#
# The gateway in a container. Two images from one file:
#
#   docker build -t openclaw .                              # the static binary alone (scratch)
#   docker build -t openclaw:chromium --target chromium .   # on Debian with Chromium, for the browser and canvas tools
#
# --build-arg VERSION=$(git describe --tags --always --dirty) sets what
# `openclaw --version` prints (default "dev").
#
# Both listen on every interface of the container (--bind lan) at port
# 18789 with token auth, and keep the config, databases and workspaces in
# the volume /home/nonroot/.openclaw. Pass the token the clients will use:
#
#   docker run -d --name openclaw -e OPENCLAW_GATEWAY_TOKEN=... -p 18789:18789 \
#     -v openclaw:/home/nonroot/.openclaw openclaw
#
# Without OPENCLAW_GATEWAY_TOKEN the gateway uses the random token it
# writes to the volume's openclaw.json at first start.
# `docker exec openclaw openclaw devices list` runs the CLI beside it.
#
# The build stage runs on the builder's own platform and cross-compiles,
# so `docker buildx build --platform linux/amd64,linux/arm64 .` needs no
# emulation.

# The go line of go.mod is 1.26.
FROM --platform=$BUILDPLATFORM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
ARG VERSION=dev
ARG TARGETOS
ARG TARGETARCH
ARG TARGETVARIANT
# The flags of scripts/release.sh: static, no symbols, the version
# `openclaw --version` prints. The state folder is made here because the
# final image has no shell: a new named volume takes its owner and mode
# from the image's folder, so the non-root gateway can write it.
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
	CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH GOARM=${TARGETVARIANT#v} \
	go build -trimpath -ldflags "-s -w -X main.version=$VERSION" -o /out/openclaw ./cmd/openclaw \
	&& mkdir -m 0700 /out/state && mkdir -m 1777 /out/tmp \
	&& echo 'nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin' >/out/passwd \
	&& echo 'nonroot:x:65532:' >/out/group

# With Chromium: `docker build --target chromium`.
FROM debian:bookworm-slim AS chromium
# Chromium's own sandbox needs user namespaces, which Docker's default
# seccomp profile does not allow, so it cannot start there; the container
# is the boundary instead. /dev/shm is 64 MiB in a container, too small
# for Chromium's shared memory on large pages. Debian's chromium launcher
# reads its flags from /etc/chromium.d/.
RUN apt-get update \
	&& apt-get install -y --no-install-recommends chromium ca-certificates \
	&& rm -rf /var/lib/apt/lists/* \
	&& echo 'export CHROMIUM_FLAGS="$CHROMIUM_FLAGS --no-sandbox --disable-dev-shm-usage"' >/etc/chromium.d/zz-container \
	&& groupadd --gid 65532 nonroot \
	&& useradd --uid 65532 --gid 65532 --create-home --home-dir /home/nonroot --shell /usr/sbin/nologin nonroot \
	&& install -d -m 0700 -o nonroot -g nonroot /home/nonroot/.openclaw
COPY --from=build /out/openclaw /usr/local/bin/openclaw
ENV HOME=/home/nonroot
USER 65532:65532
WORKDIR /home/nonroot
EXPOSE 18789
VOLUME /home/nonroot/.openclaw
ENTRYPOINT ["/usr/local/bin/openclaw", "gateway", "--bind", "lan"]

# The default image: the static binary alone, with the build stage's CA
# certificates (for the model APIs and channels) and time zones (for cron
# schedules with a tz), as user nonroot (65532).
FROM scratch
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /usr/share/zoneinfo /usr/share/zoneinfo
COPY --from=build /out/passwd /etc/passwd
COPY --from=build /out/group /etc/group
COPY --from=build /out/tmp /tmp
COPY --from=build /out/openclaw /usr/local/bin/openclaw
COPY --from=build --chown=65532:65532 /out/state /home/nonroot/.openclaw
ENV HOME=/home/nonroot
USER 65532:65532
WORKDIR /home/nonroot
EXPOSE 18789
VOLUME /home/nonroot/.openclaw
ENTRYPOINT ["/usr/local/bin/openclaw", "gateway", "--bind", "lan"]
