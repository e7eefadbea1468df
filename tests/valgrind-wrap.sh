#!/bin/sh
# Test wrapper of `meson test --setup=valgrind`: runs compiled test programs
# under memcheck (errors and definite leaks fail) and interpreted tests
# (Python, Go drivers) directly, since the interpreters are not ours to check.
case "$(basename "$1")" in
python*|go|*.py|*.sh) exec "$@" ;;
esac
exec valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite \
	--track-fds=no --quiet "$@"
