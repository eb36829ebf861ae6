import RecipeCore

/// Shared arithmetic of the geometric ops' output sizes.
enum Geometry {
    /// The largest side a size parameter may ask for, in pixels: every size is bounded so that a
    /// recipe from a stranger cannot ask for an absurd canvas (DESIGN.md §5).
    static let maxSide: Double = 100_000

    /// `v` rounded half away from zero to whole pixels, at least `minimum`; non-finite values give
    /// `minimum`.
    static func wholePixels(_ v: Double, minimum: Int = 1) -> Int {
        guard v.isFinite else { return minimum }
        let r = min(v.rounded(.toNearestOrAwayFromZero), maxSide * 16)
        return max(minimum, Int(r))
    }

    /// The largest `aspect.width : aspect.height` rectangle inside `size`, in whole pixels.
    static func fit(aspect: (width: Int, height: Int), in size: CanvasSize) -> CanvasSize {
        guard aspect.width > 0, aspect.height > 0 else { return size }
        let (w, h) = (Double(size.width), Double(size.height))
        let (a, b) = (Double(aspect.width), Double(aspect.height))
        if w * b <= h * a {
            // The canvas is as wide as the ratio or narrower: keep the width.
            return CanvasSize(width: size.width, height: min(size.height, wholePixels(w * b / a)))
        } else {
            return CanvasSize(width: min(size.width, wholePixels(h * a / b)), height: size.height)
        }
    }
}
