#ifndef RECIPE_CJPEG_SHIM_H
#define RECIPE_CJPEG_SHIM_H
#include <stdio.h>
#include <jpeglib.h>
#include <jerror.h>
#endif
