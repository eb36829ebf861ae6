/* The commit is a C define rather than a generated Swift file: SwiftPM recompiles this one file
 * when the define changes, and a build without it needs nothing generated (see Package.swift). */
#include "CBuildInfo.h"

#ifndef RECIPE_COMMIT
#define RECIPE_COMMIT "unknown"
#endif

const char *rcp_build_commit(void) { return RECIPE_COMMIT; }
