#ifndef RECIPE_CLCMS2_SHIM_H
#define RECIPE_CLCMS2_SHIM_H
#include <lcms2.h>

/* lcms2's pixel-format constants are built with function-like macros (COLORSPACE_SH(PT_RGB)|…),
   which Swift cannot import; these enumerators carry the same values across. lcms2 2.14 names no
   planar float RGB format, so that one is composed here; its float formatters accept planar data. */
enum {
    RCP_TYPE_RGB_8 = TYPE_RGB_8,
    RCP_TYPE_RGB_16 = TYPE_RGB_16,
    RCP_TYPE_RGB_FLT = TYPE_RGB_FLT,
    RCP_TYPE_RGB_FLT_PLANAR = TYPE_RGB_FLT | PLANAR_SH(1),
    RCP_TYPE_GRAY_8 = TYPE_GRAY_8,
    RCP_TYPE_GRAY_16 = TYPE_GRAY_16,
    RCP_TYPE_GRAY_FLT = TYPE_GRAY_FLT,
    RCP_TYPE_CMYK_8 = TYPE_CMYK_8,
    RCP_TYPE_CMYK_8_REV = TYPE_CMYK_8_REV,
    RCP_TYPE_CMYK_FLT = TYPE_CMYK_FLT,
    RCP_TYPE_XYZ_FLT = TYPE_XYZ_FLT
};

#endif
