#!/usr/bin/env bash
# Installs an epp-build release for the runner (see action.yml): downloads
# the binary of the runner's system and SHA256SUMS, checks the signature
# of SHA256SUMS when a public key is given, then the binary's checksum,
# and only then installs it into a folder added to GITHUB_PATH.
#
# Environment: EPP_BUILD_VERSION, EPP_BUILD_PUBLIC_KEY (PEM text or a
# path; may be empty), EPP_BUILD_DOWNLOAD_URL, and what the runner sets:
# RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP, GITHUB_PATH, GITHUB_OUTPUT.
set -euo pipefail

fail() {
	echo "::error title=setup-epp-build::$*" >&2
	exit 1
}

version=${EPP_BUILD_VERSION:-}
base=${EPP_BUILD_DOWNLOAD_URL:-https://github.com/epp-build/epp-build/releases/download}
# The version becomes part of a URL and of file names: only a semantic
# version may, so no input can point the download elsewhere.
if ! [[ $version =~ ^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$ ]]; then
	fail "version '$version': want a release version such as v0.1.0"
fi

# The release names its binaries by Go's GOOS and GOARCH.
case ${RUNNER_OS:-} in
Linux) os=linux ;;
macOS) os=darwin ;;
*) fail "no epp-build release binary for runner OS '${RUNNER_OS:-}': releases have Linux and macOS binaries" ;;
esac
case ${RUNNER_ARCH:-} in
X64) arch=amd64 ;;
ARM64) arch=arm64 ;;
*) fail "no epp-build release binary for runner architecture '${RUNNER_ARCH:-}': releases have X64 (amd64) and ARM64 (arm64) binaries" ;;
esac
bin=epp-build-$version-$os-$arch

work=$(mktemp -d "${RUNNER_TEMP:-/tmp}/setup-epp-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
download() {
	curl -fsSL --retry 3 --proto '=https,http' -o "$work/$1" "$base/$version/$1" ||
		fail "download $base/$version/$1 failed"
}
download "$bin"
download SHA256SUMS

if [[ -n ${EPP_BUILD_PUBLIC_KEY:-} ]]; then
	download SHA256SUMS.sig
	if [[ $EPP_BUILD_PUBLIC_KEY == *"-----BEGIN"* ]]; then
		printf '%s\n' "$EPP_BUILD_PUBLIC_KEY" >"$work/release.pub"
	elif [[ -f $EPP_BUILD_PUBLIC_KEY ]]; then
		cp "$EPP_BUILD_PUBLIC_KEY" "$work/release.pub"
	else
		fail "public-key: '$EPP_BUILD_PUBLIC_KEY' is neither PEM text nor a file"
	fi
	if command -v cosign >/dev/null; then
		cosign verify-blob --key "$work/release.pub" --signature "$work/SHA256SUMS.sig" \
			--insecure-ignore-tlog "$work/SHA256SUMS" >&2 ||
			fail "SHA256SUMS of $version does not verify with the public key"
	else
		# The signature is base64 of an ASN.1 ECDSA signature over SHA-256,
		# which openssl (and macOS's LibreSSL) verify as it is.
		openssl base64 -d -A -in "$work/SHA256SUMS.sig" -out "$work/SHA256SUMS.sig.der" ||
			fail "SHA256SUMS.sig of $version is not base64"
		openssl dgst -sha256 -verify "$work/release.pub" -signature "$work/SHA256SUMS.sig.der" \
			"$work/SHA256SUMS" >&2 ||
			fail "SHA256SUMS of $version does not verify with the public key"
	fi
else
	echo "setup-epp-build: no public-key: the checksum is checked, the signature is not" >&2
fi

# Only the binary's own line: a SHA256SUMS that does not list it must
# fail, not pass with nothing checked.
awk -v f="$bin" '$2 == f' "$work/SHA256SUMS" >"$work/want"
[[ $(wc -l <"$work/want") -eq 1 ]] || fail "SHA256SUMS of $version has no line for $bin"
if command -v sha256sum >/dev/null; then
	sum=(sha256sum)
else
	sum=(shasum -a 256) # macOS
fi
(cd "$work" && "${sum[@]}" -c want >&2) || fail "$bin does not match its checksum in SHA256SUMS"

dest=${RUNNER_TEMP:-/tmp}/epp-build/$version/bin
mkdir -p "$dest"
install -m 755 "$work/$bin" "$dest/epp-build"
"$dest/epp-build" version >&2 || fail "$bin does not run on this runner"
echo "$dest" >>"$GITHUB_PATH"
echo "path=$dest/epp-build" >>"$GITHUB_OUTPUT"
