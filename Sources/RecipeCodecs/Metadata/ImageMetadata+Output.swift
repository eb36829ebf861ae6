import RecipeCore

extension ImageMetadata {
    /// The metadata as it should be written with the rendered pixels: orientation reset to 1 when
    /// the decoder applied it (so no viewer rotates twice), pixel dimensions updated. Blocks
    /// themselves are otherwise untouched.
    public func prepared(forOutputWidth width: Int, height: Int) -> ImageMetadata {
        var out = self
        if let bytes = exif, var e = EXIF(bytes) {
            e.setOrientation(1)
            e.setPixelDimensions(width: width, height: height)
            out.exif = e.bytes
        }
        if let packet = xmp, orientation != .up {
            out.xmp = XMP.resettingOrientation(packet)
        }
        out.orientation = .up
        return out
    }
}
