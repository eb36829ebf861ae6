#ifndef RECIPE_CPNG_SHIM_H
#define RECIPE_CPNG_SHIM_H
#include <png.h>
#endif
