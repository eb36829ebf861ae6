#ifndef RECIPE_CXML2_SHIM_H
#define RECIPE_CXML2_SHIM_H
#include <libxml/xmlreader.h>
#endif
