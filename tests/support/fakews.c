/* fakews.c: C driver for tests/fakews/fakews.py (to be implemented). */
#include "fakews.h"
