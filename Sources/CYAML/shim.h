#ifndef RECIPE_CYAML_SHIM_H
#define RECIPE_CYAML_SHIM_H
#include <yaml.h>
#endif
