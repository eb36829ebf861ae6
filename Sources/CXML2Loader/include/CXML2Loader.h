#ifndef RECIPE_CXML2LOADER_H
#define RECIPE_CXML2LOADER_H

/* libxml2's pull reader (xmlTextReader), for darktable's XMP sidecars and Camera Raw's settings
 * (Lightroom sidecars, presets, XMP embedded in photos), loaded the first time a
 * sidecar is read rather than at every start: linking libxml2 (and the ICU it brings) costs each
 * process about 0.5 ms before main (an empty C program that already links libstdc++: 2.7 → 3.2 ms
 * with -lxml2), for a reader only `edit` and `apply` on darktable sidecars use.
 *
 * These are the ten libxml2 calls recipe makes, under names of our own (so nothing in libxml2
 * binds to them), declared here with libxml2's ABI: no libxml2 header is needed to build. */

/* libxml2's xmlTextReader, opaque. */
typedef struct rcp_xml_reader rcp_xml_reader;

/* The xmlParserOption bits and the xmlReaderTypes value recipe uses (libxml2's parser.h and
 * xmlreader.h; part of its stable ABI). */
enum {
    RCP_XML_PARSE_NOERROR = 1 << 5,
    RCP_XML_PARSE_NOWARNING = 1 << 6,
    RCP_XML_PARSE_NONET = 1 << 11,
};
enum {
    RCP_XML_READER_TYPE_ELEMENT = 1,
    RCP_XML_READER_TYPE_TEXT = 3,
    RCP_XML_READER_TYPE_CDATA = 4,
    RCP_XML_READER_TYPE_END_ELEMENT = 15,
};

/* Loads libxml2.so.2 and its functions, and initialises the parser, once (thread-safe); 1 when
 * they are there, else 0 with *message (when given) saying why. Call before the others. */
int rcp_xml_load(const char **message);

/* libxml2's xmlParserVersion as loaded at run time ("20914" for 2.9.14); NULL when it cannot be
 * loaded. */
const char *rcp_xml_version(void);

/* xmlReaderForMemory(buffer, size, NULL, NULL, options): a reader over `size` bytes read in
 * place, or NULL. */
rcp_xml_reader *rcp_xml_reader_for_memory(const char *buffer, int size, int options);
/* xmlTextReaderRead: 1 at the next node, 0 at the end, -1 on an error. */
int rcp_xml_read(rcp_xml_reader *reader);
/* xmlTextReaderNodeType. */
int rcp_xml_node_type(rcp_xml_reader *reader);
/* xmlTextReaderConstName and xmlTextReaderConstValue: UTF-8 the reader owns, or NULL. */
const unsigned char *rcp_xml_name(rcp_xml_reader *reader);
const unsigned char *rcp_xml_value(rcp_xml_reader *reader);
/* xmlTextReaderMoveToNextAttribute: 1 when moved, 0 when none is left, -1 on an error. */
int rcp_xml_next_attribute(rcp_xml_reader *reader);
/* xmlTextReaderGetParserLineNumber. */
int rcp_xml_line(rcp_xml_reader *reader);
/* xmlTextReaderDepth: the current node's depth (the root element is 0), -1 on an error. The
 * Camera Raw reader keeps its own element stack by it and refuses deep nesting. */
int rcp_xml_depth(rcp_xml_reader *reader);
/* xmlFreeTextReader. */
void rcp_xml_free_reader(rcp_xml_reader *reader);

#endif
