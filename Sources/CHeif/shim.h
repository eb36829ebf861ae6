#ifndef RECIPE_CHEIF_SHIM_H
#define RECIPE_CHEIF_SHIM_H
#include <libheif/heif.h>
#endif
