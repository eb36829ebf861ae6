/* Loads libxml2 when the first darktable or Camera Raw XMP is read (see CXML2Loader.h for why), as
 * CHeifLoader loads libheif. */
#include "CXML2Loader.h"
#include "CLibraryLoader.h"
#include <stddef.h>

static void (*p_xmlInitParser)(void);
static rcp_xml_reader *(*p_xmlReaderForMemory)(const char *, int, const char *, const char *, int);
static int (*p_xmlTextReaderRead)(rcp_xml_reader *);
static int (*p_xmlTextReaderNodeType)(rcp_xml_reader *);
static const unsigned char *(*p_xmlTextReaderConstName)(rcp_xml_reader *);
static const unsigned char *(*p_xmlTextReaderConstValue)(rcp_xml_reader *);
static int (*p_xmlTextReaderMoveToNextAttribute)(rcp_xml_reader *);
static int (*p_xmlTextReaderGetParserLineNumber)(rcp_xml_reader *);
static int (*p_xmlTextReaderDepth)(rcp_xml_reader *);
static void (*p_xmlFreeTextReader)(rcp_xml_reader *);
/* A variable, not a function: "20914" for 2.9.14 (libxml2's globals.h). */
static const char *const *p_xmlParserVersion;

static const rcp_symbol symbols[] = {
    RCP_SYMBOL(xmlInitParser),
    RCP_SYMBOL(xmlReaderForMemory),
    RCP_SYMBOL(xmlTextReaderRead),
    RCP_SYMBOL(xmlTextReaderNodeType),
    RCP_SYMBOL(xmlTextReaderConstName),
    RCP_SYMBOL(xmlTextReaderConstValue),
    RCP_SYMBOL(xmlTextReaderMoveToNextAttribute),
    RCP_SYMBOL(xmlTextReaderGetParserLineNumber),
    RCP_SYMBOL(xmlTextReaderDepth),
    RCP_SYMBOL(xmlFreeTextReader),
    RCP_SYMBOL(xmlParserVersion),
    {0, 0},
};
static rcp_library library = {"libxml2.so.2", symbols, PTHREAD_ONCE_INIT};

static void load(void) {
    rcp_library_open(&library);
    /* libxml2 asks for one initialisation before parsing on several threads (`apply` reads
     * sidecars from its workers). */
    if (library.loaded) p_xmlInitParser();
}

int rcp_xml_load(const char **message) { return rcp_library_load(&library, load, message); }

const char *rcp_xml_version(void) { return rcp_xml_load(NULL) ? *p_xmlParserVersion : NULL; }

rcp_xml_reader *rcp_xml_reader_for_memory(const char *buffer, int size, int options) {
    return p_xmlReaderForMemory(buffer, size, NULL, NULL, options);
}
int rcp_xml_read(rcp_xml_reader *reader) { return p_xmlTextReaderRead(reader); }
int rcp_xml_node_type(rcp_xml_reader *reader) { return p_xmlTextReaderNodeType(reader); }
const unsigned char *rcp_xml_name(rcp_xml_reader *reader) { return p_xmlTextReaderConstName(reader); }
const unsigned char *rcp_xml_value(rcp_xml_reader *reader) { return p_xmlTextReaderConstValue(reader); }
int rcp_xml_next_attribute(rcp_xml_reader *reader) { return p_xmlTextReaderMoveToNextAttribute(reader); }
int rcp_xml_line(rcp_xml_reader *reader) { return p_xmlTextReaderGetParserLineNumber(reader); }
int rcp_xml_depth(rcp_xml_reader *reader) { return p_xmlTextReaderDepth(reader); }
void rcp_xml_free_reader(rcp_xml_reader *reader) { p_xmlFreeTextReader(reader); }
