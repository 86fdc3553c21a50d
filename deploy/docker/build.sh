#!/usr/bin/env sh
# `make image`: build deploy/docker/Dockerfile with docker or podman, whichever works here.
# IMAGE (default maumau:<VERSION>) names the result; push it to your registry yourself.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
version=$(cat "$root/VERSION")
image=${IMAGE:-maumau:$version}
for engine in docker podman; do
    if command -v "$engine" >/dev/null 2>&1; then
        if "$engine" info >/dev/null 2>&1; then
            echo "building $image with $engine"
            exec "$engine" build --file "$root/deploy/docker/Dockerfile" --tag "$image" "$root"
        fi
        echo "make image: $engine is installed but does not answer (is its daemon or service running?)" >&2
    fi
done
echo "make image: neither docker nor podman works on this machine; install one of them" \
     "(https://docs.docker.com/engine/install/ or https://podman.io/docs/installation)" >&2
exit 1
