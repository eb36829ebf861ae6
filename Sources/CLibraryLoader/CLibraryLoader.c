#include "CLibraryLoader.h"
#include <dlfcn.h>
#include <stdio.h>

void rcp_library_open(rcp_library *library) {
    void *handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *e = dlerror();
        snprintf(library->problem, sizeof library->problem, "%s", e ? e : "the library cannot be loaded");
        return;
    }
    for (const rcp_symbol *s = library->symbols; s->name; s++) {
        if (!(*s->slot = dlsym(handle, s->name))) {
            snprintf(library->problem, sizeof library->problem, "%s has no %s (too old?)", library->soname, s->name);
            return;
        }
    }
    library->loaded = 1;
}

int rcp_library_load(rcp_library *library, void (*once)(void), const char **message) {
    pthread_once(&library->once, once);
    if (!library->loaded && message) *message = library->problem;
    return library->loaded;
}
