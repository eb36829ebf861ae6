internal import CLCMS2

/// An lcms2 transform from one profile to another, for packed rows or float planes.
///
/// Built with cmsFLAGS_NOCACHE, so one transform may convert on several threads at once (lcms2 2.x
/// already copies its one-pixel cache per call; the flag keeps that true whatever the version), and
/// without black-point compensation (as `vips icc_transform` does by default). Float layouts are
/// unbounded wherever lcms2 evaluates formulas (matrix-shapers, parametric curves); tables clip.
///
/// Precision over speed for integer layouts: lcms2's default optimisation replaces an
/// integer-to-integer transform by a resampled table (17⁴ nodes for CMYK, 33³ for RGB), which with
/// lcms2 2.14 is off by up to 18/255 for SWOP → sRGB and 5200/65535 for Adobe RGB → sRGB 16-bit, in
/// gamut as well as at its edge. So integer-to-integer transforms are built with cmsFLAGS_NOOPTIMIZE
/// (exact to rounding, about 5× slower: ~290 ns a CMYK pixel), except 8-bit RGB input between two
/// matrix-shapers, where lcms2's own matrix-shaper path is both fast and within 0.7/255. Float
/// layouts are never resampled by lcms2, so they need no flag.
///
/// ```swift
/// let t = try ColorTransform(from: embedded, to: .sRGB, input: .rgb8, output: .rgb8, intent: .perceptual)
/// row.withUnsafeBytes { src in out.withUnsafeMutableBytes { t.convert(src.baseAddress!, $0.baseAddress!, pixels: width) } }
/// ```
public final class ColorTransform: @unchecked Sendable {
    let context: LCMSContext
    let handle: cmsHTRANSFORM
    private let input: Layout
    private let output: Layout
    // lcms2 builds the transform's stages in the profiles' contexts and frees them through those
    // contexts when the transform goes, so the profiles must outlive it.
    private let source: ColorProfile
    private let destination: ColorProfile

    /// Links `from` to `to`, reading pixels laid out as `input` and writing `output`. Throws when a
    /// layout does not fit its profile's colour model or lcms2 cannot link the profiles.
    ///
    /// ```swift
    /// let toWorking = try ColorTransform(from: profile, to: .linearSRGB, input: .rgbFloatPlanar,
    ///                                    output: .rgbFloatPlanar, intent: .relative)
    /// ```
    public init(from: ColorProfile, to: ColorProfile, input: Layout, output: Layout, intent: RenderingIntent) throws(ColorProfileError) {
        guard input.colorModel == from.colorModel else {
            throw ColorProfileError("colour transform: input layout \(input) does not fit the \(from.colorModel.rawValue) profile \"\(from.description)\"")
        }
        guard output.colorModel == to.colorModel else {
            throw ColorProfileError("colour transform: output layout \(output) does not fit the \(to.colorModel.rawValue) profile \"\(to.description)\"")
        }
        let context = LCMSContext()
        _ = from.context.drain()
        _ = to.context.drain()
        var flags = cmsUInt32Number(cmsFLAGS_NOCACHE)
        if Self.wouldResample(from: from, to: to, input: input, output: output, intent: intent) {
            flags |= cmsUInt32Number(cmsFLAGS_NOOPTIMIZE)
        }
        guard let handle = cmsCreateTransformTHR(context.handle, from.handle, input.lcmsFormat, to.handle, output.lcmsFormat,
                                                 intent.lcmsValue, flags) else {
            throw ColorProfileError("colour transform from \"\(from.description)\" to \"\(to.description)\" (\(intent.rawValue)) could not be built"
                                    + lcmsReason(context, from.context, to.context))
        }
        self.context = context
        self.handle = handle
        self.input = input
        self.output = output
        self.source = from
        self.destination = to
    }

    deinit {
        cmsDeleteTransform(handle)
    }

    /// Whether lcms2's default optimisation would replace the transform by a resampled table: both
    /// sides integer, and not the 8-bit RGB matrix-shaper pair lcms2 converts accurately (cmsopt.c,
    /// OptimizeMatrixShaper: 8-bit input, three channels each side, curves and matrices only).
    static func wouldResample(from: ColorProfile, to: ColorProfile, input: Layout, output: Layout, intent: RenderingIntent) -> Bool {
        guard !input.isFloat, !output.isFloat else { return false }
        let matrixShaperPair = input == .rgb8 && (output == .rgb8 || output == .rgb16) && intent != .absolute
            && ColorProfile.usesMatrixShaper(from.handle, intent: Int32(intent.lcmsValue))
            && ColorProfile.usesMatrixShaper(to.handle, intent: Int32(intent.lcmsValue))
        return !matrixShaperPair
    }

    /// Converts `pixels` packed pixels from `src` (input layout) to `dst` (output layout). For
    /// `.rgbFloatPlanar` the three planes of `pixels` floats follow each other in one buffer.
    ///
    /// ```swift
    /// t.convert(srcRow, dstRow, pixels: width)
    /// ```
    public func convert(_ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, pixels: Int) {
        precondition(pixels >= 0 && pixels <= Int(UInt32.max), "pixel count out of range")
        cmsDoTransform(handle, src, dst, cmsUInt32Number(pixels))
    }

    /// Converts `count` RGB float pixels in place, each channel in its own plane at any address.
    /// Both layouts must be `.rgbFloatPlanar`.
    ///
    /// ```swift
    /// t.convertPlanar(red.baseAddress!, green.baseAddress!, blue.baseAddress!, count: width)
    /// ```
    public func convertPlanar(_ r: UnsafeMutablePointer<Float>, _ g: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>, count: Int) {
        precondition(input == .rgbFloatPlanar && output == .rgbFloatPlanar, "convertPlanar needs an .rgbFloatPlanar transform")
        precondition(count >= 0, "negative pixel count")
        // lcms2 wants the planes at one fixed distance; the caller's may be anywhere, so each chunk
        // is gathered into adjacent planes (12 KB in, 12 KB out) and scattered back.
        let chunk = 1024
        withUnsafeTemporaryAllocation(of: Float.self, capacity: 6 * chunk) { buffer in
            let inPlanes = buffer.baseAddress!, outPlanes = inPlanes + 3 * chunk
            var start = 0
            while start < count {
                let n = min(chunk, count - start)
                (inPlanes).update(from: r + start, count: n)
                (inPlanes + n).update(from: g + start, count: n)
                (inPlanes + 2 * n).update(from: b + start, count: n)
                let plane = cmsUInt32Number(n * MemoryLayout<Float>.size)
                cmsDoTransformLineStride(handle, inPlanes, outPlanes, cmsUInt32Number(n), 1, plane, plane, plane, plane)
                (r + start).update(from: outPlanes, count: n)
                (g + start).update(from: outPlanes + n, count: n)
                (b + start).update(from: outPlanes + 2 * n, count: n)
                start += n
            }
        }
    }
}
