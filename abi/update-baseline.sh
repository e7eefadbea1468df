#!/bin/sh
# Regenerate abi/libair.abi from a debug-info build of libair.so
# (e.g. `meson setup build && ninja -C build`; debugoptimized keeps -g).
# Run it when a release adds symbols; an incompatible change needs a new SONAME.
#   abi/update-baseline.sh build/lib/libair.so.1.0.0
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
lib=${1:?usage: $0 path/to/libair.so}
abidw --headers-dir "$root/include/air" --drop-private-types --no-corpus-path \
	--no-comp-dir-path --short-locs --type-id-style hash \
	--out-file "$root/abi/libair.abi" "$lib"
echo "wrote abi/libair.abi ($(grep -c '<elf-symbol ' "$root/abi/libair.abi") symbols)"
