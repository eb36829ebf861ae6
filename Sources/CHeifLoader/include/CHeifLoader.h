#ifndef RECIPE_CHEIFLOADER_H
#define RECIPE_CHEIFLOADER_H
#include <libheif/heif.h>

/* Loads libheif.so.1 and its functions once (thread-safe); 1 when they are there, else 0 with
 * *message (when given) saying why. Call before any other libheif function. */
int rcp_heif_load(const char **message);

/* libheif's version ("1.15.1") as loaded at run time; NULL when it cannot be loaded. */
const char *rcp_heif_version(void);

#endif
