#!/usr/bin/env bash
# The release's build steps (.github/workflows/release.yml), run locally without publishing anything:
#
#   1. the tag check: RELEASE_TAG (default v<package.json version>) must name package.json's version;
#   2. the release notes: CHANGELOG.md's section for the version (scripts/changelog.mjs);
#   3. `npm run build` (into OUT/context/dist, not the work tree's dist/) and the Worker bundle,
#      packed as the release attaches it;
#   4. both images (hub, agent) from the Dockerfile with the release's build arguments, on the
#      Docker daemon of DOCKER_HOST, each run once with --version;
#   5. the SBOM of each image by the hub's own generator (scripts/image-sbom.ts over `docker save`).
#
# What it cannot do here: push, build for a second platform (the classic builder builds the host's
# only), attach BuildKit's SBOM and provenance attestations, or sign (those need a registry and the
# workflow's OIDC identity). `npm test` runs it (test/release/release-dry-run.test.ts) on a test
# dockerd with a Node base image made offline.
#
#   scripts/release-dry-run.sh OUT_DIR
#
# Environment: NODE_IMAGE (default node:20-bookworm-slim, the Dockerfile's), SOURCE_URL (default: the
# Dockerfile's), REVISION (default `git rev-parse HEAD`), RELEASE_TAG, IMAGE_PREFIX (default
# localhost/dockwatch-dry-run), DOCKER (the docker CLI, default `docker`). Writes into OUT_DIR:
# release-notes.md, context/ (the build context), dockwatch-workers-<version>.tar.gz,
# <target>.labels.json, <target>.cdx.json and summary.json.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:?usage: scripts/release-dry-run.sh OUT_DIR}"
DOCKER="${DOCKER:-docker}"
NODE_IMAGE="${NODE_IMAGE:-node:20-bookworm-slim}"
IMAGE_PREFIX="${IMAGE_PREFIX:-localhost/dockwatch-dry-run}"
REVISION="${REVISION:-$(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)}"
TARGETS=(hub agent)

step() { printf '\n== %s\n' "$*"; }
fail() {
  printf 'release-dry-run: %s\n' "$*" >&2
  exit 1
}

mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
cd "$ROOT"

VERSION="$(node -p 'require("./package.json").version')"
TAG="${RELEASE_TAG:-v$VERSION}"

step "1/5 the tag ${TAG} names package.json's version ${VERSION}"
[ "$TAG" = "v$VERSION" ] || fail "tag ${TAG} but package.json says ${VERSION}: tag what \`npm version\` made"

step "2/5 release notes: CHANGELOG.md's section for ${VERSION}"
node scripts/changelog.mjs section "$VERSION" > "$OUT/release-notes.md"
echo "$(wc -l < "$OUT/release-notes.md") lines in release-notes.md"

step "3/5 npm run build, and the Worker bundle"
CONTEXT="$OUT/context"
rm -rf "$CONTEXT" "$OUT/workers"
mkdir -p "$CONTEXT"
# What .dockerignore lets into the release's context: the Dockerfile is built as committed.
cp Dockerfile .dockerignore LICENSE "$CONTEXT/"
npm run --silent build -- --outdir "$CONTEXT/dist"
node scripts/build-workers.mjs --outfile "$OUT/workers/dist/workers/index.js"
cp wrangler.toml "$OUT/workers/"
tar -czf "$OUT/dockwatch-workers-${VERSION}.tar.gz" -C "$OUT/workers" \
  wrangler.toml dist/workers/index.js dist/workers/index.js.map

step "4/5 images ${TARGETS[*]} (${NODE_IMAGE} as the base)"
build_args=(--build-arg "NODE_IMAGE=${NODE_IMAGE}" --build-arg "VERSION=${VERSION}" --build-arg "REVISION=${REVISION}")
if [ -n "${SOURCE_URL:-}" ]; then build_args+=(--build-arg "SOURCE_URL=${SOURCE_URL}"); fi
for target in "${TARGETS[@]}"; do
  image="${IMAGE_PREFIX}/${target}:${VERSION}"
  "$DOCKER" build --quiet --target "$target" "${build_args[@]}" -t "$image" "$CONTEXT" > /dev/null
  "$DOCKER" image inspect --format '{{json .Config.Labels}}' "$image" > "$OUT/${target}.labels.json"
  reported="$("$DOCKER" run --rm "$image" --version)"
  [ "$reported" = "$VERSION" ] || fail "${image} --version says ${reported}, not ${VERSION}"
  echo "${image}: labels in ${target}.labels.json, --version ${reported}"
done

step "5/5 SBOM of each image by the hub's generator"
for target in "${TARGETS[@]}"; do
  image="${IMAGE_PREFIX}/${target}:${VERSION}"
  id="$("$DOCKER" image inspect --format '{{.Id}}' "$image")"
  "$DOCKER" save "$image" | node --import tsx scripts/image-sbom.ts --image "$image" --id "$id" > "$OUT/${target}.cdx.json"
  echo "${image}: ${target}.cdx.json"
done

# shellcheck disable=SC2016 # JavaScript template literals, not shell expansions
node -e '
  const [out, version, tag, revision, prefix, ...targets] = process.argv.slice(1);
  const images = Object.fromEntries(targets.map((target) => [target, {
    image: `${prefix}/${target}:${version}`,
    labels: `${target}.labels.json`,
    sbom: `${target}.cdx.json`,
  }]));
  const summary = { version, tag, revision, notes: "release-notes.md", workers: `dockwatch-workers-${version}.tar.gz`, images };
  require("node:fs").writeFileSync(`${out}/summary.json`, `${JSON.stringify(summary, null, 2)}\n`);
' "$OUT" "$VERSION" "$TAG" "$REVISION" "$IMAGE_PREFIX" "${TARGETS[@]}"
step "dry run of ${TAG} done: ${OUT}/summary.json"
