#!/usr/bin/env bash
# Makes a container image from Debian bookworm's packages, for machines that reach a Debian mirror but no image
# registry: the gateway's base (with this machine's Node and npm and a `node` user, uid 1000, as the official node
# image has) and the Postgres and Redis that compose runs. The mirror is the one this machine's apt uses.
#
#   ops/container/debian-image.sh node:20-bookworm-slim --node
#   ops/container/debian-image.sh local/postgres:15 postgresql-15
#
# Usage: debian-image.sh TAG [--node] [PACKAGE...]
set -euo pipefail
tag=$1
shift
node=false
packages=ca-certificates
for arg in "$@"; do
  if [ "$arg" = --node ]; then node=true; else packages+=",$arg"; fi
done
sources=/etc/apt/sources.list.d/debian.sources
[ -f "$sources" ] || sources=/etc/apt/sources.list

hooks=(--customize-hook='echo "node:x:1000:1000::/home/node:/bin/bash" >>"$1/etc/passwd" && echo "node:x:1000:" >>"$1/etc/group" && mkdir -p "$1/home/node" && chown 1000:1000 "$1/home/node"')
if $node; then
  npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
  hooks+=(
    --customize-hook="copy-in $(readlink -f "$(command -v node)") /usr/bin"
    --customize-hook='mkdir -p "$1/usr/lib/node_modules"'
    --customize-hook="copy-in $npm_dir /usr/lib/node_modules"
    --customize-hook='chroot "$1" sh -c "ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/bin/npm && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/bin/npx"'
  )
fi
# Package lists and caches are not needed in an image; documentation neither.
hooks+=(--customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/* "$1"/usr/share/doc/* "$1"/usr/share/man/*')

mmdebstrap --quiet --variant=apt --include="$packages" "${hooks[@]}" bookworm - "$sources" \
  | podman import --change 'CMD ["bash"]' - "$tag" >/dev/null
echo "$tag"
