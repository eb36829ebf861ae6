/// The versions of the C libraries the codecs run on, for `recipe --version`.
///
/// Each is asked at run time where the library can say so (the version installed, which may be
/// newer than the one built against); libheif, libtiff and LibRaw are loaded for the question and
/// are nil when they cannot be. The calls live in the files that own each library (rule 5), so this
/// file imports no C module:
///
///     CodecLibraries.libpng    // "1.6.39"
///     CodecLibraries.libheif   // "1.15.1", or nil without libheif1
public enum CodecLibraries {
    /// libjpeg-turbo's version from the header built against: the libjpeg API cannot say it at run time.
    public static var libjpegTurbo: String { JPEGDecoder.libjpegTurboVersion }
    /// libpng's version at run time.
    public static var libpng: String { PNGDecoder.libpngVersion }
    /// libwebp's decoder version at run time.
    public static var libwebp: String { WebPDecoder.libwebpVersion }
    /// libheif's version as loaded, nil when libheif.so.1 cannot be loaded.
    public static var libheif: String? { HEIFDecoder.libheifVersion }
    /// libtiff's version as loaded, nil when libtiff.so.6 cannot be loaded.
    public static var libtiff: String? { TIFFHandle.libtiffVersion }
    /// LibRaw's version as loaded ("0.20.2-Release"), nil when libraw_r.so.20 cannot be loaded.
    public static var libRaw: String? { RawDecoder.libRawVersion }
}
