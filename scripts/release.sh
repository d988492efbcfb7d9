#!/usr/bin/env bash
# Builds the release binaries: one static `openclaw` per platform, packed
# with the README and the example config, and a SHA256SUMS over the
# archives. Needs only Go and the usual shell tools (tar, gzip, od and
# sha256sum or shasum).
#
#   scripts/release.sh [VERSION]   # dist/openclaw_<VERSION>_<os>_<arch>.tar.gz and dist/SHA256SUMS
#   scripts/release.sh --check     # build every target to a temporary folder and check it; no archives (CI)
#
# VERSION defaults to `git describe --tags --always --dirty`, or "dev"
# outside a git checkout; it is what `openclaw --version` prints.
#
# Environment:
#   TARGETS          os/arch list (default: linux/amd64 linux/arm64 linux/arm darwin/amd64 darwin/arm64);
#                    linux/arm is ARMv6 (GOARM=6), which every Raspberry Pi runs
#   SIZE_BUDGET_MIB  largest binary allowed, in MiB (default 40; 0 turns the check off)
#
# Each binary is checked to be what its target runs (ELF or Mach-O, the
# right CPU) and, on Linux, to be statically linked (no program
# interpreter), so it runs on any distribution, Alpine and distroless
# images included.
set -euo pipefail

default_targets="linux/amd64 linux/arm64 linux/arm darwin/amd64 darwin/arm64"
version_var=main.version # cmd/openclaw's `var version`

die() {
	printf 'release.sh: %s\n' "$*" >&2
	exit 1
}

usage() {
	sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p;}' "${BASH_SOURCE[0]}"
}

# le_uint FILE OFFSET LEN prints the little-endian unsigned integer of LEN
# (1 to 8) bytes at OFFSET in FILE, or fails when the file is shorter.
le_uint() {
	local bytes b n=0 shift=0 count=0
	bytes=$(od -An -v -t u1 -j "$2" -N "$3" -- "$1") || return 1
	for b in $bytes; do
		n=$((n | (b << shift)))
		shift=$((shift + 8))
		count=$((count + 1))
	done
	((count == $3)) || return 1
	printf '%d\n' "$n"
}

# binary_kind FILE prints what FILE is: "elf32 MACHINE", "elf64 MACHINE"
# (little-endian ELF, MACHINE its e_machine), "macho64 CPUTYPE" or
# "unknown".
binary_kind() {
	local magic
	magic=$(od -An -v -t x1 -N 4 -- "$1" | tr -d ' \n')
	case $magic in
	7f454c46)
		local class data
		class=$(le_uint "$1" 4 1) data=$(le_uint "$1" 5 1)
		if ((data != 1)); then
			echo unknown
		elif ((class == 1)); then
			echo "elf32 $(le_uint "$1" 18 2)"
		elif ((class == 2)); then
			echo "elf64 $(le_uint "$1" 18 2)"
		else
			echo unknown
		fi
		;;
	cffaedfe) echo "macho64 $(le_uint "$1" 4 4)" ;;
	*) echo unknown ;;
	esac
}

# expected_kind OS ARCH prints what binary_kind says of a good binary for
# the target, or nothing when this script does not know the target.
expected_kind() {
	case $1/$2 in
	linux/amd64) echo "elf64 62" ;;        # EM_X86_64
	linux/arm64) echo "elf64 183" ;;       # EM_AARCH64
	linux/arm) echo "elf32 40" ;;          # EM_ARM
	darwin/amd64) echo "macho64 16777223" ;; # CPU_TYPE_X86_64
	darwin/arm64) echo "macho64 16777228" ;; # CPU_TYPE_ARM64
	esac
}

# elf_interp FILE succeeds when the little-endian ELF FILE has a PT_INTERP
# program header, i.e. needs a dynamic loader to start. It reads the
# header table itself, so no `file` or `readelf` is needed.
elf_interp() {
	local class phoff phentsize phnum i type
	class=$(le_uint "$1" 4 1)
	if ((class == 2)); then
		phoff=$(le_uint "$1" 32 8) phentsize=$(le_uint "$1" 54 2) phnum=$(le_uint "$1" 56 2)
	else
		phoff=$(le_uint "$1" 28 4) phentsize=$(le_uint "$1" 42 2) phnum=$(le_uint "$1" 44 2)
	fi
	for ((i = 0; i < phnum; i++)); do
		type=$(le_uint "$1" $((phoff + i * phentsize)) 4) || die "$1: program header $i is past the end of the file"
		((type == 3)) && return 0 # PT_INTERP
	done
	return 1
}

# check_binary FILE OS ARCH fails, saying why, unless FILE is a binary for
# OS/ARCH and, on Linux, a static one. It prints "static" or "-".
check_binary() {
	local want got
	want=$(expected_kind "$2" "$3")
	got=$(binary_kind "$1")
	if [[ -n $want && $got != "$want" ]]; then
		printf 'release.sh: %s is not a %s/%s binary (found %s, want %s)\n' "$1" "$2" "$3" "$got" "$want" >&2
		return 1
	fi
	if [[ $got == elf* ]]; then
		if elf_interp "$1"; then
			printf 'release.sh: %s (%s/%s) is dynamically linked (it has a program interpreter); build with CGO_ENABLED=0\n' "$1" "$2" "$3" >&2
			return 1
		fi
		echo static
	else
		echo -
	fi
}

# mib BYTES prints BYTES in MiB with one decimal.
mib() {
	printf '%d.%d' $(($1 / 1048576)) $(($1 % 1048576 * 10 / 1048576))
}

main() {
	local check=0 version=""
	while (($# > 0)); do
		case $1 in
		--check) check=1 ;;
		-h | --help)
			usage
			return 0
			;;
		-*) die "unknown option $1 (see --help)" ;;
		*)
			[[ -z $version ]] || die "one VERSION only (got $version and $1)"
			version=$1
			;;
		esac
		shift
	done

	cd "$(dirname "${BASH_SOURCE[0]}")/.."
	command -v go >/dev/null || die "go not found on PATH"
	if [[ -z $version ]]; then
		version=$(git describe --tags --always --dirty 2>/dev/null) || version=dev
	fi
	# The version ends up in file names and on the linker's command line.
	[[ $version =~ ^[A-Za-z0-9][A-Za-z0-9._+-]*$ ]] ||
		die "VERSION \"$version\" must be letters, digits and . _ + - (starting with a letter or digit)"

	local budget=${SIZE_BUDGET_MIB:-40}
	[[ $budget =~ ^[0-9]+$ ]] || die "SIZE_BUDGET_MIB=\"$budget\" is not a whole number of MiB (0 turns the check off)"
	budget=$((10#$budget))

	local targets=${TARGETS-$default_targets} target
	read -r -a targets <<<"$targets"
	((${#targets[@]} > 0)) || die "TARGETS is empty"
	for target in "${targets[@]}"; do
		[[ $target =~ ^[a-z0-9]+/[a-z0-9]+$ ]] || die "target \"$target\" in TARGETS is not os/arch (e.g. linux/arm64)"
	done

	local work
	work=$(mktemp -d "${TMPDIR:-/tmp}/openclaw-release.XXXXXX")
	# shellcheck disable=SC2064 # expand now: work is local
	trap "rm -rf '$work'" EXIT

	local ldflags="-s -w -X $version_var=$version"
	local os arch out size kind start over=()
	local -a sizes=()
	printf '== openclaw %s: %s%s\n' "$version" "${targets[*]}" "$( ((check)) && echo ' (check only)')" >&2
	for target in "${targets[@]}"; do
		os=${target%/*} arch=${target#*/}
		out=$work/${os}_$arch/openclaw
		start=$(date +%s)
		# Each CPU family's baseline (ARMv6 for every Raspberry Pi), whatever
		# this machine's go env says, so a binary runs on the oldest CPU of
		# its kind; the variables of other families are ignored.
		CGO_ENABLED=0 GOOS=$os GOARCH=$arch GOARM=6 GOAMD64=v1 GOARM64=v8.0 \
			go build -trimpath -ldflags "$ldflags" -o "$out" ./cmd/openclaw ||
			die "building $target failed"
		size=$(wc -c <"$out")
		size=$((size + 0))
		kind=$(check_binary "$out" "$os" "$arch") || die "$target: the binary failed its check"
		sizes+=("$target $size")
		if ((budget > 0 && size > budget * 1048576)); then
			over+=("$target")
		fi
		printf '%-13s %6s MiB  %-6s  built in %ds\n' "$target" "$(mib "$size")" "$kind" $(($(date +%s) - start))
	done

	if ((${#over[@]} > 0)); then
		{
			printf 'release.sh: over the size budget of %d MiB (SIZE_BUDGET_MIB): %s\n' "$budget" "${over[*]}"
			local s
			for s in "${sizes[@]}"; do
				printf '  %-13s %10d bytes (%s MiB)\n' "${s% *}" "${s#* }" "$(mib "${s#* }")"
			done
		} >&2
		return 1
	fi
	if ((check)); then
		printf '== built and checked%s: %s\n' "$( ((budget > 0)) && echo ", each within $budget MiB")" "${targets[*]}" >&2
		return 0
	fi

	package "$version" "$work" "${targets[@]}"
}

# package VERSION WORK TARGET... writes one archive per target from the
# binaries in WORK, and SHA256SUMS over them, into dist/.
package() {
	local version=$1 work=$2
	shift 2
	local sum
	if command -v sha256sum >/dev/null; then
		sum=(sha256sum)
	elif command -v shasum >/dev/null; then
		sum=(shasum -a 256)
	else
		die "neither sha256sum nor shasum found"
	fi
	# Archives of one commit come out byte for byte the same: fixed
	# owner, order and times (GNU tar) and no name or time in the gzip
	# header.
	local epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
	local -a tarflags=()
	if tar --version 2>/dev/null | grep -q 'GNU tar'; then
		tarflags=(--owner=0 --group=0 --numeric-owner --sort=name "--mtime=@$epoch")
	fi
	local -a extra=(README.md openclaw.json.example)
	[[ -f LICENSE ]] && extra+=(LICENSE)

	mkdir -p dist
	rm -f dist/openclaw_*.tar.gz dist/SHA256SUMS
	local target os arch stage name
	local -a names=()
	for target in "$@"; do
		os=${target%/*} arch=${target#*/}
		stage=$work/${os}_$arch
		cp "${extra[@]}" "$stage/"
		chmod 755 "$stage/openclaw"
		chmod 644 "${extra[@]/#/$stage/}"
		name=openclaw_${version}_${os}_$arch.tar.gz
		(cd "$stage" && tar ${tarflags[@]+"${tarflags[@]}"} -cf - openclaw "${extra[@]}") | gzip -n -9 >"dist/$name"
		names+=("$name")
	done
	(cd dist && "${sum[@]}" "${names[@]}" >SHA256SUMS)
	printf '== wrote SHA256SUMS and the archives to dist/:\n' >&2
	(cd dist && ls -l "${names[@]}" SHA256SUMS)
}

# Sourcing the file (for a quick look at its checks) defines the functions
# and runs nothing.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	main "$@"
fi
