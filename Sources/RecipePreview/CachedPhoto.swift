import RecipeCodecs
import RecipeCore
import RecipeRender
import Synchronization

/// A photo the preview renders again and again: its rows are decoded once per DCT reduction and
/// kept, so a new save of the recipe runs only the recipe. `decoder(cancel:)` hands `RenderJob`
/// a decoder that replays the kept rows (the same rows the file's decoder gives: the render is
/// the one `recipe render` makes) and stops with `PreviewCancelled` once `cancel` is set, which
/// is how a newer save supersedes a render in flight.
///
/// A CMYK photo is not kept (its decoder converts through the profile as it reads), nor is a full
/// size decode (a 1:1 region view): those are decoded from the file each time.
package final class CachedPhoto: Sendable {
    package let path: String
    /// In folder mode, the folder's real path: each open checks that the photo still lies in it.
    package let folder: String?
    package let info: ImageInfo
    package let supportedScaleDenominators: [Int]
    /// The rows' format, as the file's decoder says before decoding (what the memory estimate reads).
    package let format: PixelFormat
    /// Whether rows are kept (false for CMYK photos).
    package let keepsRows: Bool
    /// Kept decodes by reduction, and for a raw by develop too (its rows are the develop's).
    private let decoded = Mutex<[String: Decoded]>([:])
    /// A raw's mosaic as unpacked by its first develop of recipe's own (with what the unpack
    /// warned of): a develop that changes afterwards runs from it, without unpacking the file.
    private let mosaic = Mutex<(mosaic: RawMosaic, warnings: [ImageWarning])?>(nil)
    /// Held while one reduction is being decoded, so two renders do not decode it twice.
    private let filling = Mutex<Void>(())

    package struct Decoded: @unchecked Sendable {
        // @unchecked: the buffer is written once, before it is stored, and only read after.
        var buffer: PixelBuffer
        var warnings: [ImageWarning]
    }

    package init(path: String, folder: String? = nil, options: DecodeOptions = DecodeOptions()) throws(ImageError) {
        self.path = path
        self.folder = folder
        let decoder = try ImageDecoders.open(try Self.openable(path, folder: folder), options: options)
        info = decoder.info
        supportedScaleDenominators = decoder.supportedScaleDenominators
        format = decoder.format
        keepsRows = !((decoder as? any CMYKDecoding)?.storesCMYK ?? false)
    }

    /// A decoder for one render, or nil when the file must be decoded afresh (CMYK). A raw's
    /// rows are those of `develop` (the recipe's `develop` stage): a save that changes only the
    /// stages after it runs only them; one that changes the develop develops again.
    /// `info` is the photo's header as that develop makes it (a half-size develop's is half the size).
    package func decoder(cancel: CancelFlag, develop: RawDevelop = RawDevelop(), info: ImageInfo? = nil,
                         supported: [Int]? = nil) -> (() throws -> any ImageDecoder)? {
        guard keepsRows else { return nil }
        return { KeptRowsDecoder(photo: self, cancel: cancel, develop: develop, info: info ?? self.info,
                                 supported: supported ?? self.supportedScaleDenominators) }
    }

    private func key(_ denominator: Int, _ develop: RawDevelop) -> String {
        info.raw == nil ? "\(denominator)" : "\(denominator) \(develop)"
    }

    /// A develop to run from the kept mosaic as the render streams (the render's demosaic stage,
    /// its rows kept as they pass: `keep`), when `develop` at `denominator` has no kept rows yet
    /// and the mosaic is kept; nil otherwise (`rows` then decodes or replays). Streaming overlaps
    /// the develop with the render's passes, instead of developing the whole photo first.
    func developing(denominator: Int, develop: RawDevelop, info header: ImageInfo) throws(ImageError) -> (MosaicDecoder, warnings: [ImageWarning])? {
        guard denominator > 1, let raw = info.raw, decoded.withLock({ $0[key(denominator, develop)] }) == nil,
              let kept = mosaic.withLock({ $0 }), MosaicDecoder.develops(raw, develop, scaleDenominator: denominator) else { return nil }
        let decoder = MosaicDecoder(mosaic: kept.mosaic, info: header, develop: develop, path: path, warnings: kept.warnings)
        try decoder.start(scaleDenominator: denominator)
        return (decoder, kept.warnings)
    }

    /// Keeps the rows a streamed develop made (`developing`), as `rows` would have.
    func keep(_ buffer: PixelBuffer, warnings: [ImageWarning], denominator: Int, develop: RawDevelop) {
        decoded.withLock {
            $0 = $0.filter { !$0.key.hasPrefix("\(denominator) ") }
            $0[key(denominator, develop)] = Decoded(buffer: buffer, warnings: warnings)
        }
    }

    /// The photo's rows at `denominator`, decoded now if they are not kept yet.
    func rows(denominator: Int, develop: RawDevelop = RawDevelop()) throws -> Decoded {
        let key = key(denominator, develop)
        if let kept = decoded.withLock({ $0[key] }) { return kept }
        return try filling.withLock { _ in
            if let kept = decoded.withLock({ $0[key] }) { return kept }
            let decoder: any ImageDecoder
            if let raw = info.raw, let kept = mosaic.withLock({ $0 }), MosaicDecoder.develops(raw, develop, scaleDenominator: denominator) {
                decoder = MosaicDecoder(mosaic: kept.mosaic, info: info, develop: develop, path: path, warnings: kept.warnings)
                try decoder.start(scaleDenominator: denominator)
            } else {
                decoder = try ImageDecoders.open(try openablePath(), options: DecodeOptions(develop: develop))
                try decoder.start(scaleDenominator: denominator)
                // The mosaic LibRaw unpacked is kept (2 bytes a pixel) before its rows are read:
                // the frame goes with the file at the last row.
                if let unpacked = (decoder as? RawDecoder)?.undeveloped?.mosaic {
                    let copy = unpacked.copy()
                    mosaic.withLock { $0 = (copy, decoder.warnings) }
                }
            }
            // A raw that recipe develops: its demosaic stage's rows.
            let source = DemosaicStage.rows(of: decoder)
            let buffer = PixelBuffer(width: source.width, rowCapacity: max(1, source.height), format: source.format)
            let strip = PixelBuffer(width: source.width, rowCapacity: 64, format: source.format)
            var y = 0
            while y < source.height {
                let n = try source.readRows(into: strip)
                if n == 0 { break }
                for r in 0..<n { buffer.row(y + r).copyMemory(from: strip.row(r), byteCount: strip.rowBytes) }
                y += n
            }
            guard y == decoder.height else { throw ImageError(.damaged, path: path, "ended after \(y) of \(decoder.height) rows") }
            buffer.rowCount = y
            let kept = Decoded(buffer: buffer, warnings: decoder.warnings)
            // A full-size decode is not kept: it is only asked for by region views, and holds the whole photo.
            // A raw keeps one develop: the one the recipe states now.
            if denominator > 1 {
                decoded.withLock {
                    if info.raw != nil { $0 = $0.filter { !$0.key.hasPrefix("\(denominator) ") } }
                    $0[key] = kept
                }
            }
            return kept
        }
    }

    /// The file to open now: in folder mode its real path, checked again against the folder (a
    /// photo replaced by a link out of it since it was listed is refused); else `path`.
    package func openablePath() throws(ImageError) -> String {
        try Self.openable(path, folder: folder)
    }

    static func openable(_ path: String, folder: String?) throws(ImageError) -> String {
        guard let folder else { return path }
        switch PreviewAccess.contained(path, root: folder) {
        case .success(let real): return real
        case .failure(let why): throw ImageError(.refused, path: path, "not served: \(why)")
        }
    }

    /// The kept decodes, by reduction (and develop, for a raw).
    package var keptDecodes: [String] { decoded.withLock { Array($0.keys) } }

    /// Bytes held by the kept decodes.
    package var keptBytes: Int {
        decoded.withLock { $0.values.reduce(0) { $0 + $1.buffer.allocatedBytes } } + (mosaic.withLock { $0?.mosaic.bytes } ?? 0)
    }
}

/// Set to stop a render: the next strip the kept rows hand out throws `PreviewCancelled`.
package final class CancelFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    package init() {}
    package func cancel() { flag.store(true, ordering: .relaxed) }
    package var isCancelled: Bool { flag.load(ordering: .relaxed) }
}

/// A render superseded by a newer one.
package struct PreviewCancelled: Error {}

/// Replays a `CachedPhoto`'s kept rows as the decoder of one render; or, for a raw whose develop
/// changed, streams the develop from the kept mosaic through the render's demosaic stage
/// (`DemosaicStage`), keeping its rows as they pass for the renders after.
final class KeptRowsDecoder: ImageDecoder {
    let photo: CachedPhoto
    let cancel: CancelFlag
    let develop: RawDevelop
    let info: ImageInfo
    let supportedScaleDenominators: [Int]
    var kept: CachedPhoto.Decoded?
    var next = 0
    /// A streamed develop: the demosaic stage and the buffer its rows are kept in.
    private var streaming: (stage: DemosaicStage, fill: PixelBuffer, warnings: [ImageWarning], denominator: Int)?

    init(photo: CachedPhoto, cancel: CancelFlag, develop: RawDevelop, info: ImageInfo, supported: [Int]) {
        self.photo = photo
        self.cancel = cancel
        self.develop = develop
        self.info = info
        self.supportedScaleDenominators = supported
    }

    var warnings: [ImageWarning] { kept?.warnings ?? streaming?.warnings ?? [] }
    var width: Int { streaming?.stage.width ?? kept?.buffer.width ?? info.width }
    var height: Int { streaming?.stage.height ?? kept?.buffer.rowCount ?? info.height }
    var format: PixelFormat { streaming?.stage.format ?? kept?.buffer.format ?? photo.format }

    /// The decoded photo this preview keeps at that scale (decoded once, then shared by renders).
    func decodingBytes(scaleDenominator: Int) -> Int {
        let d = max(1, scaleDenominator)
        let width = (info.width + d - 1) / d
        // A raw's develop may stream through a demosaic stage while its rows are kept.
        return PixelBuffer.bytes(width: width, rowCapacity: (info.height + d - 1) / d, format: photo.format)
            + (info.raw != nil ? DemosaicStage.bytes(width: width, half: true, denoise: develop.denoise != nil) : 0)
    }

    func start(scaleDenominator: Int) throws(ImageError) {
        if let (decoder, warnings) = try photo.developing(denominator: scaleDenominator, develop: develop, info: info),
           let stage = DemosaicStage.rows(of: decoder) as? DemosaicStage {
            streaming = (stage, PixelBuffer(width: stage.width, rowCapacity: max(1, stage.height), format: stage.format), warnings, scaleDenominator)
            return
        }
        do {
            kept = try photo.rows(denominator: scaleDenominator, develop: develop)
        } catch let error as ImageError {
            throw error
        } catch {
            throw ImageError(.damaged, path: photo.path, "\(error)")
        }
    }

    func readRows(into buffer: PixelBuffer) throws -> Int {
        if cancel.isCancelled { throw PreviewCancelled() }
        if let streaming {
            let n = try streaming.stage.readRows(into: buffer)
            for r in 0..<n { streaming.fill.row(buffer.originY + r).copyMemory(from: buffer.row(r), byteCount: buffer.rowBytes) }
            next += n
            if n > 0, next == streaming.stage.height {
                streaming.fill.rowCount = next
                photo.keep(streaming.fill, warnings: streaming.warnings, denominator: streaming.denominator, develop: develop)
            }
            return n
        }
        guard let kept else { return 0 }
        let n = min(buffer.rowCapacity, kept.buffer.rowCount - next)
        guard n > 0 else { return 0 }
        for r in 0..<n { buffer.row(r).copyMemory(from: kept.buffer.row(next + r), byteCount: kept.buffer.rowBytes) }
        buffer.rowCount = n
        buffer.originY = next
        next += n
        return n
    }
}
