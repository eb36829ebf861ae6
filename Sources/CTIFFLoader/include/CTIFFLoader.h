#ifndef RECIPE_CTIFFLOADER_H
#define RECIPE_CTIFFLOADER_H
#include <tiffio.h>

/* Loads libtiff.so.6 and its functions once (thread-safe); 1 when they are there, else 0 with
 * *message (when given) saying why. Call before any other libtiff function. */
int rcp_tiff_load(const char **message);

/* libtiff's banner as loaded at run time ("LIBTIFF, Version 4.5.0\nCopyright ..."); NULL when it
 * cannot be loaded. */
const char *rcp_tiff_version(void);

#endif
