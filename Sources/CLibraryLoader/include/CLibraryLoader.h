#ifndef RECIPE_CLIBRARYLOADER_H
#define RECIPE_CLIBRARYLOADER_H

#include <pthread.h>

/* A shared library loaded the first time recipe needs it rather than at every start (libheif,
 * libtiff, libxml2: each costs a process 0.5–3 ms before main when linked), its functions looked
 * up once into the loader's own pointers. One per library, static in its loader:
 *
 *     static __typeof__(TIFFClose) *p_TIFFClose;
 *     static const rcp_symbol symbols[] = {RCP_SYMBOL(TIFFClose), {0, 0}};
 *     static rcp_library library = {"libtiff.so.6", symbols, PTHREAD_ONCE_INIT};
 *     static void load(void) { rcp_library_open(&library); }
 *     int rcp_tiff_load(const char **message) { return rcp_library_load(&library, load, message); }
 */

/* A function to look up, and the pointer it goes into. */
typedef struct {
    const char *name;
    void **slot;
} rcp_symbol;
#define RCP_SYMBOL(name) {#name, (void **)&p_##name}

typedef struct {
    const char *soname;
    const rcp_symbol *symbols; /* ends with {0, 0} */
    pthread_once_t once;
    int loaded;
    char problem[256];
} rcp_library;

/* Opens the library (RTLD_NOW | RTLD_LOCAL) and fills every symbol's pointer; `loaded` when all
 * are there, else `problem` says why. For the loader's once routine (pthread_once takes none). */
void rcp_library_open(rcp_library *library);

/* Runs `once` (which calls rcp_library_open) the first time; 1 when loaded, else 0 with *message
 * (when given) saying why. Thread-safe. */
int rcp_library_load(rcp_library *library, void (*once)(void), const char **message);

#endif
