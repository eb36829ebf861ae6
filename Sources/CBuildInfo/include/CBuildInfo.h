#ifndef RECIPE_CBUILDINFO_H
#define RECIPE_CBUILDINFO_H

/* What the binary was built from, for `recipe --version`: the git commit that Package.swift passes
 * in from RECIPE_COMMIT in the build's environment (.ci/package sets it), "unknown" when the build
 * had none (a plain `swift build`). */
const char *rcp_build_commit(void);

#endif
