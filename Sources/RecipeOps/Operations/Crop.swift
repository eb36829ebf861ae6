import RecipeCore

extension Operations {
    /// Cuts out a rectangle: either given as x, y, width, height, or as the largest rectangle of an
    /// aspect ratio placed by an anchor (CICrop; `vips crop`).
    ///
    /// ```yaml
    /// - crop: {aspect: "3:2"}
    /// - crop: {aspect: "1:1", anchor: top}
    /// - crop: {x: 10%, y: 5%, width: 80%, height: 90%}
    /// - crop: {x: 120, y: 80, width: 4000, height: 3000}
    /// ```
    ///
    /// A rectangle needs `width` and `height` (`x` and `y` default to 0) and is rounded to whole
    /// pixels and clamped to the canvas; `aspect` and a rectangle exclude each other.
    public static let crop = OperationSpec(
        name: "crop",
        summary: "Keeps a half-open integer rectangle of the canvas, given as x, y, width, height or as the largest aspect-ratio rectangle at an anchor (CICrop, vips crop).",
        opClass: .geometric, space: .none,
        params: [
            ParamSpec("x", .length(px: 0...Geometry.maxSide, percentOf: .width),
                      "left edge of the rectangle, in px or % of the width; 0 when absent"),
            ParamSpec("y", .length(px: 0...Geometry.maxSide, percentOf: .height),
                      "top edge of the rectangle, in px or % of the height; 0 when absent"),
            ParamSpec("width", .length(px: 0...Geometry.maxSide, percentOf: .width),
                      "width of the rectangle, in px or % of the width"),
            ParamSpec("height", .length(px: 0...Geometry.maxSide, percentOf: .height),
                      "height of the rectangle, in px or % of the height"),
            ParamSpec("aspect", .aspect,
                      "width:height ratio of the largest rectangle to keep, such as \"3:2\""),
            ParamSpec("anchor", .choice(cropAnchors), default: .choice("center"),
                      "where the aspect rectangle sits in the canvas"),
        ],
        example: "crop: {aspect: \"3:2\"}",
        validate: validateCrop,
        geometry: cropSize)

    /// The places an aspect crop can sit, named by the side or corner it touches.
    private static let cropAnchors = ["center", "top", "bottom", "left", "right",
                              "top-left", "top-right", "bottom-left", "bottom-right"]

    private static let cropRectKeys = ["x", "y", "width", "height"]

    private static func validateCrop(_ params: ParamSet) -> [ParamProblem] {
        let rectKeys = cropRectKeys.filter { params.has($0) }
        let hasAspect = params.has("aspect")
        if hasAspect, let first = rectKeys.first {
            return [ParamProblem(
                first, "crop takes either `aspect` or a rectangle, not both",
                notes: ["remove `aspect`, or remove \(rectKeys.map { "`\($0)`" }.joined(separator: ", "))"])]
        }
        if !hasAspect && rectKeys.isEmpty {
            return [ParamProblem(
                nil, "crop needs `aspect` or a rectangle (`width` and `height`, optionally `x` and `y`)",
                notes: ["for example `crop: {aspect: \"3:2\"}` or `crop: {width: 80%, height: 80%}`"])]
        }
        var problems: [ParamProblem] = []
        if !hasAspect {
            for key in ["width", "height"] where !params.has(key) {
                problems.append(ParamProblem(
                    key, "a crop rectangle needs `\(key)`",
                    notes: ["`x` and `y` default to 0, but the size of the rectangle has no default"]))
            }
            for key in ["width", "height"] {
                if let l = params.length(key), l.pixels(base: 1, scale: 1) <= 0 {
                    problems.append(ParamProblem(key, "the crop \(key) must be greater than 0"))
                }
            }
        }
        if !hasAspect && params.isGiven("anchor") {
            problems.append(ParamProblem(
                "anchor", "`anchor` places an `aspect` crop; a rectangle already has its x and y"))
        }
        return problems
    }

    private static func cropSize(_ size: CanvasSize, _ params: ParamSet) -> CanvasSize {
        if let aspect = params.aspect("aspect") {
            return Geometry.fit(aspect: aspect, in: size)
        }
        guard let width = params.fullSizePixels("width", base: size.width),
              let height = params.fullSizePixels("height", base: size.height) else { return size }
        let x = params.fullSizePixels("x", base: size.width) ?? 0
        let y = params.fullSizePixels("y", base: size.height) ?? 0
        return CanvasSize(width: clampedSpan(start: x, length: width, within: size.width),
                          height: clampedSpan(start: y, length: height, within: size.height))
    }

    /// The whole-pixel length of [start, start + length) after clamping to [0, limit); at least 1.
    private static func clampedSpan(start: Double, length: Double, within limit: Int) -> Int {
        let first = Geometry.wholePixels(start, minimum: 0)
        let end = first + Geometry.wholePixels(length, minimum: 0)
        let clampedFirst = min(first, limit - 1), clampedEnd = min(end, limit)
        return max(1, clampedEnd - clampedFirst)
    }
}
