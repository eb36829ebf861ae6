/* Loads libxml2 when the first darktable sidecar is read (see CXML2Loader.h for why), as
 * CHeifLoader loads libheif. */
#include "CXML2Loader.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static void (*p_xmlInitParser)(void);
static rcp_xml_reader *(*p_xmlReaderForMemory)(const char *, int, const char *, const char *, int);
static int (*p_xmlTextReaderRead)(rcp_xml_reader *);
static int (*p_xmlTextReaderNodeType)(rcp_xml_reader *);
static const unsigned char *(*p_xmlTextReaderConstName)(rcp_xml_reader *);
static const unsigned char *(*p_xmlTextReaderConstValue)(rcp_xml_reader *);
static int (*p_xmlTextReaderMoveToNextAttribute)(rcp_xml_reader *);
static int (*p_xmlTextReaderGetParserLineNumber)(rcp_xml_reader *);
static void (*p_xmlFreeTextReader)(rcp_xml_reader *);

static char problem[256];
static int loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

#define RESOLVE(name)                                                                  \
    if (!(*(void **)&p_##name = dlsym(h, #name))) {                                    \
        snprintf(problem, sizeof problem, "libxml2 has no %s", #name);                 \
        return;                                                                        \
    }

static void load(void) {
    void *h = dlopen("libxml2.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(problem, sizeof problem, "%s", e ? e : "libxml2.so.2 cannot be loaded");
        return;
    }
    RESOLVE(xmlInitParser)
    RESOLVE(xmlReaderForMemory)
    RESOLVE(xmlTextReaderRead)
    RESOLVE(xmlTextReaderNodeType)
    RESOLVE(xmlTextReaderConstName)
    RESOLVE(xmlTextReaderConstValue)
    RESOLVE(xmlTextReaderMoveToNextAttribute)
    RESOLVE(xmlTextReaderGetParserLineNumber)
    RESOLVE(xmlFreeTextReader)
    /* libxml2 asks for one initialisation before parsing on several threads (`apply` reads
     * sidecars from its workers). */
    p_xmlInitParser();
    loaded = 1;
}

int rcp_xml_load(const char **message) {
    pthread_once(&once, load);
    if (!loaded && message) *message = problem;
    return loaded;
}

rcp_xml_reader *rcp_xml_reader_for_memory(const char *buffer, int size, int options) {
    return p_xmlReaderForMemory(buffer, size, NULL, NULL, options);
}
int rcp_xml_read(rcp_xml_reader *reader) { return p_xmlTextReaderRead(reader); }
int rcp_xml_node_type(rcp_xml_reader *reader) { return p_xmlTextReaderNodeType(reader); }
const unsigned char *rcp_xml_name(rcp_xml_reader *reader) { return p_xmlTextReaderConstName(reader); }
const unsigned char *rcp_xml_value(rcp_xml_reader *reader) { return p_xmlTextReaderConstValue(reader); }
int rcp_xml_next_attribute(rcp_xml_reader *reader) { return p_xmlTextReaderMoveToNextAttribute(reader); }
int rcp_xml_line(rcp_xml_reader *reader) { return p_xmlTextReaderGetParserLineNumber(reader); }
void rcp_xml_free_reader(rcp_xml_reader *reader) { p_xmlFreeTextReader(reader); }
