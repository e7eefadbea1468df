#!/bin/sh
# Test wrapper of `meson test --setup=valgrind`: runs compiled test programs
# under memcheck (errors and definite leaks fail). Interpreted tests (Python,
# Go drivers) are skipped (exit 77): the programs they start are not under
# memcheck, so they would only repeat the plain run.
case "$(basename "$1")" in
python*|go|*.py|*.sh) exit 77 ;;
esac
exec valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite \
	--track-fds=no --quiet "$@"
