internal import CTIFF
internal import CTIFFLoader
import RecipeCore
#if canImport(Glibc)
import Glibc
#endif

/// Owns one libtiff handle opened over a `FILE*` the caller keeps, and the messages libtiff
/// reported on it.
///
/// libtiff reaches the file only through the client procedures below (read, write, seek, size;
/// close does nothing, mapping is off), so the decoder closes its own file in `deinit` and the
/// encoder leaves the caller's stream open for its fflush/fsync/rename. Errors and warnings go to
/// handlers registered per handle with `TIFFOpenOptions` (user data = this handle's message list),
/// so decoders on several threads never share state; the process-wide handlers are silenced once,
/// so nothing libtiff says reaches stderr.
///
/// ```swift
/// let handle = TIFFHandle(file: file, name: path, mode: "rm", maxSingleAllocation: 256 << 20)
/// guard handle.tif != nil else { throw … handle.messages.lastError … }
/// let width = handle.uint32(TIFFTAG_IMAGEWIDTH)
/// ```
final class TIFFHandle {
    /// The libtiff `TIFF*`; nil once closed.
    private(set) var tif: OpaquePointer?
    let messages = TIFFMessages()

    /// Opens `file` for reading (`mode` "rm") or writing ("wl", "wb", "w8l" …); on failure `tif`
    /// is nil and `messages` says why.
    init(file: UnsafeMutablePointer<FILE>, name: String, mode: String, maxSingleAllocation: Int) {
        // libtiff is loaded on the first TIFF, not at every start (CTIFFLoader).
        var problem: UnsafePointer<CChar>?
        guard rcp_tiff_load(&problem) == 1 else {
            messages.errors.append(problem.map { String(cString: $0) } ?? "libtiff cannot be loaded")
            return
        }
        _ = silenceProcessWideHandlers
        guard let options = TIFFOpenOptionsAlloc() else {
            messages.errors.append("libtiff could not allocate its options")
            return
        }
        defer { TIFFOpenOptionsFree(options) }
        let user = Unmanaged.passUnretained(messages).toOpaque()
        TIFFOpenOptionsSetErrorHandlerExtR(options, { _, user, _, format, args in
            TIFFMessages.record(user, format, args, isError: true)
        }, user)
        TIFFOpenOptionsSetWarningHandlerExtR(options, { _, user, _, format, args in
            TIFFMessages.record(user, format, args, isError: false)
        }, user)
        TIFFOpenOptionsSetMaxSingleMemAlloc(options, tmsize_t(maxSingleAllocation))
        tif = TIFFClientOpenExt(
            name, mode, UnsafeMutableRawPointer(file),
            { handle, buffer, size in
                guard let handle, let buffer, size > 0 else { return 0 }
                return tmsize_t(fread(buffer, 1, Int(size), handle.assumingMemoryBound(to: FILE.self)))
            },
            { handle, buffer, size in
                guard let handle, let buffer, size > 0 else { return 0 }
                let written = fwrite(buffer, 1, Int(size), handle.assumingMemoryBound(to: FILE.self))
                return written == Int(size) ? size : -1
            },
            { handle, offset, whence in
                guard let handle, offset <= UInt64(Int64.max) else { return UInt64.max }
                let f = handle.assumingMemoryBound(to: FILE.self)
                guard fseeko(f, off_t(offset), whence) == 0 else { return UInt64.max }
                let at = ftello(f)
                return at < 0 ? UInt64.max : UInt64(at)
            },
            { _ in 0 },  // close: the owner of the FILE* closes it
            { handle in
                guard let handle else { return 0 }
                let f = handle.assumingMemoryBound(to: FILE.self)
                let here = ftello(f)
                guard fseeko(f, 0, SEEK_END) == 0 else { return 0 }
                let end = ftello(f)
                if here >= 0 { fseeko(f, here, SEEK_SET) }
                return end < 0 ? 0 : UInt64(end)
            },
            { _, _, _ in 0 },  // no memory mapping: reads stay bounded (chunked strip reads)
            { _, _, _ in },
            options)
    }

    deinit { close() }

    /// Flushes a writer and releases libtiff's state (the FILE* stays open).
    func close() {
        if let tif { TIFFClose(tif) }
        tif = nil
    }

    /// Releases libtiff's state without another byte of I/O: for an unfinished writer, whose
    /// FILE* its owner may already have closed (a failed render discards the output).
    func abandon() {
        guard let tif else { return }
        TIFFSetClientdata(tif, nil)  // the procedures then fail every call
        _ = TIFFSetMode(tif, O_RDONLY)  // and TIFFClose does not flush
        close()
    }

    // MARK: Tags (TIFFGetField and TIFFSetField are C-variadic; their va_list forms are not)

    func uint16(_ tag: Int32, defaulted: Bool = false) -> UInt16? {
        var v: UInt16 = 0
        return get(tag, defaulted: defaulted, &v) ? v : nil
    }

    func uint32(_ tag: Int32, defaulted: Bool = false) -> UInt32? {
        var v: UInt32 = 0
        return get(tag, defaulted: defaulted, &v) ? v : nil
    }

    func uint64(_ tag: Int32) -> UInt64? {
        var v: UInt64 = 0
        return get(tag, defaulted: false, &v) ? v : nil
    }

    /// Two SHORT values returned through two pointers (YCbCrSubsampling).
    func uint16Pair(_ tag: Int32, defaulted: Bool = false) -> (UInt16, UInt16)? {
        guard let tif else { return nil }
        var a: UInt16 = 0, b: UInt16 = 0
        let ok = withUnsafeMutablePointer(to: &a) { pa in
            withUnsafeMutablePointer(to: &b) { pb in
                withVaList([pa, pb]) { defaulted ? TIFFVGetFieldDefaulted(tif, UInt32(tag), $0) : TIFFVGetField(tif, UInt32(tag), $0) }
            }
        }
        return ok == 1 ? (a, b) : nil
    }

    /// A counted array of SHORTs (ExtraSamples).
    func uint16Array(_ tag: Int32, defaulted: Bool = false) -> [UInt16]? {
        guard let tif else { return nil }
        var count: UInt16 = 0
        var values: UnsafeMutablePointer<UInt16>? = nil
        let ok = withUnsafeMutablePointer(to: &count) { pc in
            withUnsafeMutablePointer(to: &values) { pv in
                withVaList([pc, pv]) { defaulted ? TIFFVGetFieldDefaulted(tif, UInt32(tag), $0) : TIFFVGetField(tif, UInt32(tag), $0) }
            }
        }
        guard ok == 1 else { return nil }
        guard let values, count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: values, count: Int(count)))
    }

    /// A counted block of bytes (ICCProfile, XMLPacket: uint32 count, void* data).
    /// Bytes per counted value of a tag as this libtiff declares it (RichTIFFIPTC: LONG in old
    /// versions, UNDEFINED since 4.0.10).
    func unit(of tag: Int32) -> Int {
        guard let field = TIFFFieldWithTag(tif, UInt32(tag)) else { return 1 }
        return TIFFFieldDataType(field) == TIFF_LONG ? 4 : 1
    }

    /// A counted block of a tag (`unit` bytes per counted value: see `unit(of:)`).
    func bytes(_ tag: Int32, unit: Int = 1) -> [UInt8]? {
        guard let tif else { return nil }
        var count: UInt32 = 0
        var data: UnsafeMutableRawPointer? = nil
        let ok = withUnsafeMutablePointer(to: &count) { pc in
            withUnsafeMutablePointer(to: &data) { pd in withVaList([pc, pd]) { TIFFVGetField(tif, UInt32(tag), $0) } }
        }
        guard ok == 1, let data, count > 0 else { return nil }
        return Array(UnsafeRawBufferPointer(start: data, count: Int(count) * unit))
    }

    /// The three colour-map arrays, each `1 << bitsPerSample` entries long.
    func colorMap(entries: Int) -> (r: [UInt16], g: [UInt16], b: [UInt16])? {
        guard let tif else { return nil }
        var r: UnsafeMutablePointer<UInt16>? = nil, g: UnsafeMutablePointer<UInt16>? = nil, b: UnsafeMutablePointer<UInt16>? = nil
        let ok = withUnsafeMutablePointer(to: &r) { pr in
            withUnsafeMutablePointer(to: &g) { pg in
                withUnsafeMutablePointer(to: &b) { pb in withVaList([pr, pg, pb]) { TIFFVGetField(tif, UInt32(TIFFTAG_COLORMAP), $0) } }
            }
        }
        guard ok == 1, let r, let g, let b else { return nil }
        return (Array(UnsafeBufferPointer(start: r, count: entries)), Array(UnsafeBufferPointer(start: g, count: entries)),
                Array(UnsafeBufferPointer(start: b, count: entries)))
    }

    /// Sets a tag; integer values are passed as the C default promotions expect (Int32 for
    /// SHORT, UInt32 for LONG, UInt64 for IFD8).
    @discardableResult
    func set(_ tag: Int32, _ values: CVarArg...) -> Bool {
        guard let tif else { return false }
        return withVaList(values) { TIFFVSetField(tif, UInt32(tag), $0) } == 1
    }

    /// Sets a counted block of bytes (ICCProfile, XMLPacket; `unit` bytes per counted value, as
    /// `unit(of:)` says, `bytes` a whole number of them).
    @discardableResult
    func set(_ tag: Int32, bytes: [UInt8], unit: Int = 1) -> Bool {
        guard let tif, !bytes.isEmpty, bytes.count % unit == 0 else { return false }
        return bytes.withUnsafeBufferPointer { p in
            withVaList([UInt32(p.count / unit), OpaquePointer(p.baseAddress!)]) { TIFFVSetField(tif, UInt32(tag), $0) }
        } == 1
    }

    /// Sets an ASCII tag from bytes (a NUL is appended; embedded NULs end the string).
    @discardableResult
    func set(_ tag: Int32, ascii: [UInt8]) -> Bool {
        guard let tif else { return false }
        let text = Array(ascii.prefix { $0 != 0 }) + [0]
        return text.withUnsafeBufferPointer { p in withVaList([p.baseAddress!]) { TIFFVSetField(tif, UInt32(tag), $0) } } == 1
    }

    private func get<T>(_ tag: Int32, defaulted: Bool, _ value: inout T) -> Bool {
        guard let tif else { return false }
        return withUnsafeMutablePointer(to: &value) { p in
            withVaList([OpaquePointer(p)]) {
                defaulted ? TIFFVGetFieldDefaulted(tif, UInt32(tag), $0) : TIFFVGetField(tif, UInt32(tag), $0)
            }
        } == 1
    }
}

/// What libtiff reported on one handle, in order, without repeats.
final class TIFFMessages {
    var errors: [String] = []
    var warnings: [String] = []
    /// Past this many distinct messages the rest are dropped (a garbage file can produce thousands).
    static let limit = 64

    /// The most recent error, lower-cased like every recipe message ("" when there is none).
    var lastError: String { errors.last.map { sentence(TIFFMessages.tidy($0, file: nil)) } ?? "" }

    /// The first error (usually the specific one) and the last (what gave up), lower-cased, without
    /// the file name libtiff puts in front of some ("" when there is none).
    func summary(file: String) -> String {
        guard let first = errors.first.map({ TIFFMessages.tidy($0, file: file) }) else { return "" }
        let last = TIFFMessages.tidy(errors.last!, file: file)
        return sentence(first == last ? first : "\(first); \(sentence(last))")
    }

    private static func tidy(_ message: String, file: String?) -> String {
        var text = message
        if let file, text.hasPrefix(file + ": ") { text.removeFirst(file.count + 2) }
        // libtiff's strip reads report "scanline" −1 when they read a whole strip.
        return text.replacing(" at scanline 4294967295", with: "")
    }

    /// Removes and returns the warnings collected so far.
    func takeWarnings() -> [String] {
        defer { warnings = [] }
        return warnings
    }

    /// The error and warning handler: formats the message and appends it to the list whose
    /// address is `user`. Returns 1 so libtiff does not pass it on to the process-wide handlers.
    static func record(_ user: UnsafeMutableRawPointer?, _ format: UnsafePointer<CChar>?, _ args: CVaListPointer?, isError: Bool) -> Int32 {
        guard let user, let format, let args else { return 1 }
        let messages = Unmanaged<TIFFMessages>.fromOpaque(user).takeUnretainedValue()
        var buffer = [CChar](repeating: 0, count: 512)
        _ = buffer.withUnsafeMutableBufferPointer { vsnprintf($0.baseAddress, $0.count, format, args) }
        let text = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        if isError {
            if messages.errors.count < limit && messages.errors.last != text { messages.errors.append(text) }
        } else if messages.warnings.count < limit && !messages.warnings.contains(text) {
            messages.warnings.append(text)
        }
        return 1
    }
}

/// The process-wide handlers print to stderr by default; the few messages that never reach a
/// handle's own handlers (errors raised before a handle exists, without open options) are dropped.
private let silenceProcessWideHandlers: Void = {
    TIFFSetErrorHandler(nil)
    TIFFSetWarningHandler(nil)
}()

extension TIFFHandle {
    /// libtiff's version as loaded, from the banner `TIFFGetVersion` returns
    /// ("LIBTIFF, Version 4.5.0\nCopyright …"); nil when libtiff.so.6 cannot be loaded.
    static var libtiffVersion: String? {
        guard let banner = rcp_tiff_version().map({ String(cString: $0) }) else { return nil }
        let firstLine = banner.split(separator: "\n").first ?? Substring(banner)
        let words = firstLine.split(separator: " ")
        guard let index = words.firstIndex(of: "Version"), index + 1 < words.endIndex else { return String(firstLine) }
        return String(words[index + 1])
    }
}
