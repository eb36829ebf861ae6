/* Loads libtiff when the first TIFF is opened, not when recipe starts: linking it (with the
 * libraries it brings: libLerc, libjbig, libzstd, libdeflate, liblzma) costs each process about
 * 0.5 ms before main (an empty C program that already links libstdc++: 2.7 -> 3.2 ms with -ltiff),
 * for a format most renders never touch. As CHeifLoader does for libheif, each libtiff function
 * recipe calls is defined here with libtiff's own prototype and forwards to the symbol dlsym
 * found, so RecipeCodecs calls libtiff as usual; TIFFHandle calls rcp_tiff_load first.
 *
 * Generated from <tiffio.h> (libtiff 4.5) for the functions Sources/RecipeCodecs/TIFF uses; a new
 * call there needs its line here (the link fails until it has one). */
#include "CTIFFLoader.h"
#include "CLibraryLoader.h"

static __typeof__(TIFFClientOpenExt) *p_TIFFClientOpenExt;
static __typeof__(TIFFClose) *p_TIFFClose;
static __typeof__(TIFFComputeTile) *p_TIFFComputeTile;
static __typeof__(TIFFCurrentDirOffset) *p_TIFFCurrentDirOffset;
static __typeof__(TIFFFieldDataType) *p_TIFFFieldDataType;
static __typeof__(TIFFFieldWithTag) *p_TIFFFieldWithTag;
static __typeof__(TIFFFlush) *p_TIFFFlush;
static __typeof__(TIFFGetVersion) *p_TIFFGetVersion;
static __typeof__(TIFFIsBigEndian) *p_TIFFIsBigEndian;
static __typeof__(TIFFIsBigTIFF) *p_TIFFIsBigTIFF;
static __typeof__(TIFFIsCODECConfigured) *p_TIFFIsCODECConfigured;
static __typeof__(TIFFIsTiled) *p_TIFFIsTiled;
static __typeof__(TIFFNumberOfDirectories) *p_TIFFNumberOfDirectories;
static __typeof__(TIFFOpenOptionsAlloc) *p_TIFFOpenOptionsAlloc;
static __typeof__(TIFFOpenOptionsFree) *p_TIFFOpenOptionsFree;
static __typeof__(TIFFOpenOptionsSetErrorHandlerExtR) *p_TIFFOpenOptionsSetErrorHandlerExtR;
static __typeof__(TIFFOpenOptionsSetMaxSingleMemAlloc) *p_TIFFOpenOptionsSetMaxSingleMemAlloc;
static __typeof__(TIFFOpenOptionsSetWarningHandlerExtR) *p_TIFFOpenOptionsSetWarningHandlerExtR;
static __typeof__(TIFFRGBAImageBegin) *p_TIFFRGBAImageBegin;
static __typeof__(TIFFRGBAImageEnd) *p_TIFFRGBAImageEnd;
static __typeof__(TIFFRGBAImageGet) *p_TIFFRGBAImageGet;
static __typeof__(TIFFRGBAImageOK) *p_TIFFRGBAImageOK;
static __typeof__(TIFFReadEncodedStrip) *p_TIFFReadEncodedStrip;
static __typeof__(TIFFReadEncodedTile) *p_TIFFReadEncodedTile;
static __typeof__(TIFFReadScanline) *p_TIFFReadScanline;
static __typeof__(TIFFScanlineSize64) *p_TIFFScanlineSize64;
static __typeof__(TIFFSetClientdata) *p_TIFFSetClientdata;
static __typeof__(TIFFSetErrorHandler) *p_TIFFSetErrorHandler;
static __typeof__(TIFFSetMode) *p_TIFFSetMode;
static __typeof__(TIFFSetWarningHandler) *p_TIFFSetWarningHandler;
static __typeof__(TIFFTileRowSize64) *p_TIFFTileRowSize64;
static __typeof__(TIFFTileSize64) *p_TIFFTileSize64;
static __typeof__(TIFFVGetField) *p_TIFFVGetField;
static __typeof__(TIFFVGetFieldDefaulted) *p_TIFFVGetFieldDefaulted;
static __typeof__(TIFFVSetField) *p_TIFFVSetField;
static __typeof__(TIFFVStripSize64) *p_TIFFVStripSize64;
static __typeof__(TIFFWriteScanline) *p_TIFFWriteScanline;

static const rcp_symbol symbols[] = {
    RCP_SYMBOL(TIFFClientOpenExt),
    RCP_SYMBOL(TIFFClose),
    RCP_SYMBOL(TIFFComputeTile),
    RCP_SYMBOL(TIFFCurrentDirOffset),
    RCP_SYMBOL(TIFFFieldDataType),
    RCP_SYMBOL(TIFFFieldWithTag),
    RCP_SYMBOL(TIFFFlush),
    RCP_SYMBOL(TIFFGetVersion),
    RCP_SYMBOL(TIFFIsBigEndian),
    RCP_SYMBOL(TIFFIsBigTIFF),
    RCP_SYMBOL(TIFFIsCODECConfigured),
    RCP_SYMBOL(TIFFIsTiled),
    RCP_SYMBOL(TIFFNumberOfDirectories),
    RCP_SYMBOL(TIFFOpenOptionsAlloc),
    RCP_SYMBOL(TIFFOpenOptionsFree),
    RCP_SYMBOL(TIFFOpenOptionsSetErrorHandlerExtR),
    RCP_SYMBOL(TIFFOpenOptionsSetMaxSingleMemAlloc),
    RCP_SYMBOL(TIFFOpenOptionsSetWarningHandlerExtR),
    RCP_SYMBOL(TIFFRGBAImageBegin),
    RCP_SYMBOL(TIFFRGBAImageEnd),
    RCP_SYMBOL(TIFFRGBAImageGet),
    RCP_SYMBOL(TIFFRGBAImageOK),
    RCP_SYMBOL(TIFFReadEncodedStrip),
    RCP_SYMBOL(TIFFReadEncodedTile),
    RCP_SYMBOL(TIFFReadScanline),
    RCP_SYMBOL(TIFFScanlineSize64),
    RCP_SYMBOL(TIFFSetClientdata),
    RCP_SYMBOL(TIFFSetErrorHandler),
    RCP_SYMBOL(TIFFSetMode),
    RCP_SYMBOL(TIFFSetWarningHandler),
    RCP_SYMBOL(TIFFTileRowSize64),
    RCP_SYMBOL(TIFFTileSize64),
    RCP_SYMBOL(TIFFVGetField),
    RCP_SYMBOL(TIFFVGetFieldDefaulted),
    RCP_SYMBOL(TIFFVSetField),
    RCP_SYMBOL(TIFFVStripSize64),
    RCP_SYMBOL(TIFFWriteScanline),
    {0, 0},
};
static rcp_library library = {"libtiff.so.6", symbols, PTHREAD_ONCE_INIT};

static void load(void) { rcp_library_open(&library); }

int rcp_tiff_load(const char **message) { return rcp_library_load(&library, load, message); }

const char *rcp_tiff_version(void) { return rcp_tiff_load(NULL) ? p_TIFFGetVersion() : NULL; }

TIFF * TIFFClientOpenExt(const char * a0, const char * a1, thandle_t a2, TIFFReadWriteProc a3, TIFFReadWriteProc a4, TIFFSeekProc a5, TIFFCloseProc a6, TIFFSizeProc a7, TIFFMapFileProc a8, TIFFUnmapFileProc a9, TIFFOpenOptions * a10) { return p_TIFFClientOpenExt(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10); }
void TIFFClose(TIFF * a0) { p_TIFFClose(a0); }
uint32_t TIFFComputeTile(TIFF * a0, uint32_t a1, uint32_t a2, uint32_t a3, uint16_t a4) { return p_TIFFComputeTile(a0, a1, a2, a3, a4); }
uint64_t TIFFCurrentDirOffset(TIFF * a0) { return p_TIFFCurrentDirOffset(a0); }
TIFFDataType TIFFFieldDataType(const TIFFField * a0) { return p_TIFFFieldDataType(a0); }
const TIFFField * TIFFFieldWithTag(TIFF * a0, uint32_t a1) { return p_TIFFFieldWithTag(a0, a1); }
int TIFFFlush(TIFF * a0) { return p_TIFFFlush(a0); }
int TIFFIsBigEndian(TIFF * a0) { return p_TIFFIsBigEndian(a0); }
int TIFFIsBigTIFF(TIFF * a0) { return p_TIFFIsBigTIFF(a0); }
int TIFFIsCODECConfigured(uint16_t a0) { return p_TIFFIsCODECConfigured(a0); }
int TIFFIsTiled(TIFF * a0) { return p_TIFFIsTiled(a0); }
tdir_t TIFFNumberOfDirectories(TIFF * a0) { return p_TIFFNumberOfDirectories(a0); }
TIFFOpenOptions * TIFFOpenOptionsAlloc(void) { return p_TIFFOpenOptionsAlloc(); }
void TIFFOpenOptionsFree(TIFFOpenOptions * a0) { p_TIFFOpenOptionsFree(a0); }
void TIFFOpenOptionsSetErrorHandlerExtR(TIFFOpenOptions * a0, TIFFErrorHandlerExtR a1, void * a2) { p_TIFFOpenOptionsSetErrorHandlerExtR(a0, a1, a2); }
void TIFFOpenOptionsSetMaxSingleMemAlloc(TIFFOpenOptions * a0, tmsize_t a1) { p_TIFFOpenOptionsSetMaxSingleMemAlloc(a0, a1); }
void TIFFOpenOptionsSetWarningHandlerExtR(TIFFOpenOptions * a0, TIFFErrorHandlerExtR a1, void * a2) { p_TIFFOpenOptionsSetWarningHandlerExtR(a0, a1, a2); }
int TIFFRGBAImageBegin(TIFFRGBAImage * a0, TIFF * a1, int a2, char a3[1024]) { return p_TIFFRGBAImageBegin(a0, a1, a2, a3); }
void TIFFRGBAImageEnd(TIFFRGBAImage * a0) { p_TIFFRGBAImageEnd(a0); }
int TIFFRGBAImageGet(TIFFRGBAImage * a0, uint32_t * a1, uint32_t a2, uint32_t a3) { return p_TIFFRGBAImageGet(a0, a1, a2, a3); }
int TIFFRGBAImageOK(TIFF * a0, char a1[1024]) { return p_TIFFRGBAImageOK(a0, a1); }
tmsize_t TIFFReadEncodedStrip(TIFF * a0, uint32_t a1, void * a2, tmsize_t a3) { return p_TIFFReadEncodedStrip(a0, a1, a2, a3); }
tmsize_t TIFFReadEncodedTile(TIFF * a0, uint32_t a1, void * a2, tmsize_t a3) { return p_TIFFReadEncodedTile(a0, a1, a2, a3); }
int TIFFReadScanline(TIFF * a0, void * a1, uint32_t a2, uint16_t a3) { return p_TIFFReadScanline(a0, a1, a2, a3); }
uint64_t TIFFScanlineSize64(TIFF * a0) { return p_TIFFScanlineSize64(a0); }
thandle_t TIFFSetClientdata(TIFF * a0, thandle_t a1) { return p_TIFFSetClientdata(a0, a1); }
TIFFErrorHandler TIFFSetErrorHandler(TIFFErrorHandler a0) { return p_TIFFSetErrorHandler(a0); }
int TIFFSetMode(TIFF * a0, int a1) { return p_TIFFSetMode(a0, a1); }
TIFFErrorHandler TIFFSetWarningHandler(TIFFErrorHandler a0) { return p_TIFFSetWarningHandler(a0); }
uint64_t TIFFTileRowSize64(TIFF * a0) { return p_TIFFTileRowSize64(a0); }
uint64_t TIFFTileSize64(TIFF * a0) { return p_TIFFTileSize64(a0); }
int TIFFVGetField(TIFF * a0, uint32_t a1, va_list a2) { return p_TIFFVGetField(a0, a1, a2); }
int TIFFVGetFieldDefaulted(TIFF * a0, uint32_t a1, va_list a2) { return p_TIFFVGetFieldDefaulted(a0, a1, a2); }
int TIFFVSetField(TIFF * a0, uint32_t a1, va_list a2) { return p_TIFFVSetField(a0, a1, a2); }
uint64_t TIFFVStripSize64(TIFF * a0, uint32_t a1) { return p_TIFFVStripSize64(a0, a1); }
int TIFFWriteScanline(TIFF * a0, void * a1, uint32_t a2, uint16_t a3) { return p_TIFFWriteScanline(a0, a1, a2, a3); }
