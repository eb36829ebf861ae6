#ifndef RECIPE_CTIFF_SHIM_H
#define RECIPE_CTIFF_SHIM_H
#include <tiffio.h>
#endif
