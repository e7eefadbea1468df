#!/bin/sh
# Compare the built libair.so with the committed ABI baseline.
# abidiff's exit status is a bit field: 4 = ABI change, 8 = incompatible change.
abidiff="$1" baseline="$2" lib="$3" headers="$4"
"$abidiff" --headers-dir2 "$headers" --drop-private-types "$baseline" "$lib"
status=$?
if [ $((status & 8)) -ne 0 ]; then
	echo "abidiff: INCOMPATIBLE ABI change against abi/libair.abi" >&2
	exit 1
fi
if [ $((status & 3)) -ne 0 ]; then
	echo "abidiff: tool error ($status)" >&2
	exit 1
fi
if [ $((status & 4)) -ne 0 ]; then
	echo "abidiff: compatible ABI additions; refresh abi/libair.abi when releasing" >&2
fi
exit 0
