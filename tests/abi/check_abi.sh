#!/bin/sh
# Compare the built libair.so with the committed ABI baseline abi/libair.abi.
# Additions are fine; a removed or changed function or variable fails, as does
# anything abidiff itself calls incompatible (exit bit 8). The new library is
# read in full (no header filtering), so a changed return or parameter type
# is seen even when it is a typedef from a system header (int64_t -> int32_t);
# the baseline holds only public types, so opaque structs may change freely.
abidiff="$1" baseline="$2" lib="$3"
# Opaque structs whose layout changed since the baseline (abi/libair.suppr).
suppr="$(dirname "$baseline")/libair.suppr"
report=$("$abidiff" --suppressions "$suppr" "$baseline" "$lib")
status=$?
printf '%s\n' "$report"
if [ $((status & 3)) -ne 0 ]; then
	echo "abidiff: tool error ($status)" >&2
	exit 1
fi
if [ $((status & 8)) -ne 0 ]; then
	echo "abidiff: INCOMPATIBLE ABI change against abi/libair.abi" >&2
	exit 1
fi
if printf '%s\n' "$report" | grep -Eq 'changes summary: [1-9][0-9]* Removed|Removed, [1-9][0-9]* Changed'; then
	echo "abidiff: functions or variables removed or changed against abi/libair.abi" >&2
	exit 1
fi
if [ $((status & 4)) -ne 0 ]; then
	echo "abidiff: compatible additions; refresh abi/libair.abi when releasing" >&2
fi
exit 0
