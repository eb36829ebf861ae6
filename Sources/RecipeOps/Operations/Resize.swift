import RecipeCore

extension Operations {
    /// Resamples the image to a new size in linear light (vips resize; CILanczosScaleTransform).
    ///
    /// ```yaml
    /// - resize: {long-edge: 2048}
    /// - resize: {width: 1200}
    /// - resize: {width: 1080, height: 1080, kernel: mitchell}
    /// - resize: {scale: 0.5}
    /// ```
    ///
    /// Give exactly one of `width`, `height`, `long-edge` or `scale` (the other side keeps the aspect
    /// ratio), or `width` and `height` together for an exact size. Sizes round to the nearest pixel.
    public static let resize = OperationSpec(
        name: "resize",
        summary: "Resamples linear light to a new size with a separable kernel stretched on downscale, centre convention and clamped edges (vips resize).",
        opClass: .geometric, space: .linear,
        params: [
            ParamSpec("width", .length(px: 1...Geometry.maxSide, percentOf: .width),
                      "output width, in px or % of the current width"),
            ParamSpec("height", .length(px: 1...Geometry.maxSide, percentOf: .height),
                      "output height, in px or % of the current height"),
            ParamSpec("long-edge", .length(px: 1...Geometry.maxSide, percentOf: .longSide),
                      "output length of the longer side, in px"),
            ParamSpec("scale", .number(0.001...8, unit: .factor),
                      "factor applied to both sides"),
            ParamSpec("kernel", .choice(["lanczos3", "mitchell", "linear"]), default: .choice("lanczos3"),
                      "resampling kernel: Lanczos-3, Mitchell–Netravali (B = C = 1/3) or linear"),
        ],
        example: "resize: {long-edge: 2048}",
        validate: validateResize,
        geometry: resizedSize)

    private static let resizeSizeKeys = ["width", "height", "long-edge", "scale"]

    private static func validateResize(_ params: ParamSet) -> [ParamProblem] {
        let given = resizeSizeKeys.filter { params.has($0) }
        if given.isEmpty {
            return [ParamProblem(
                nil, "resize needs a size: `width`, `height`, `long-edge` or `scale`",
                notes: ["for example `resize: {long-edge: 2048}`"])]
        }
        if given.count == 1 || given == ["width", "height"] { return [] }
        let listed = given.map { "`\($0)`" }.joined(separator: ", ")
        return [ParamProblem(
            given[1], "resize takes one of `width`, `height`, `long-edge` or `scale`, or `width` with `height`; this one has \(listed)",
            notes: ["the side not given keeps the aspect ratio"])]
    }

    private static func resizedSize(_ size: CanvasSize, _ params: ParamSet) -> CanvasSize {
        let (w, h) = (Double(size.width), Double(size.height))
        let width = params.fullSizePixels("width", base: size.width)
        let height = params.fullSizePixels("height", base: size.height)
        switch (width, height) {
        case let (width?, height?):
            return CanvasSize(width: Geometry.wholePixels(width), height: Geometry.wholePixels(height))
        case let (width?, nil):
            return CanvasSize(width: Geometry.wholePixels(width), height: Geometry.wholePixels(h * width / w))
        case let (nil, height?):
            return CanvasSize(width: Geometry.wholePixels(w * height / h), height: Geometry.wholePixels(height))
        case (nil, nil):
            break
        }
        if let longEdge = params.fullSizePixels("long-edge", base: size.longSide) {
            if size.width >= size.height {
                return CanvasSize(width: Geometry.wholePixels(longEdge),
                                  height: Geometry.wholePixels(h * longEdge / w))
            }
            return CanvasSize(width: Geometry.wholePixels(w * longEdge / h), height: Geometry.wholePixels(longEdge))
        }
        if let scale = params.number("scale") {
            return CanvasSize(width: Geometry.wholePixels(w * scale), height: Geometry.wholePixels(h * scale))
        }
        return size
    }
}
