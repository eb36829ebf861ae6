import RecipeCore

/// Typed reads of checked parameters for the ops' `validate` and `geometry` closures. Each returns
/// nil when the key is absent or holds another kind of value (the checker reports the latter).
extension ParamSet {
    /// True when the key has a value, given or default.
    func has(_ name: String) -> Bool { self[name] != nil }

    func length(_ name: String) -> Length? {
        if case .length(let l) = self[name] { return l }
        return nil
    }

    public func choice(_ name: String) -> String? {
        if case .choice(let c) = self[name] { return c }
        return nil
    }

    public func boolean(_ name: String) -> Bool? {
        if case .boolean(let b) = self[name] { return b }
        return nil
    }

    func point(_ name: String) -> CanvasPoint? {
        if case .point(let p) = self[name] { return p }
        return nil
    }

    func points(_ name: String) -> [CanvasPoint]? {
        if case .points(let ps) = self[name] { return ps }
        return nil
    }

    func aspect(_ name: String) -> (width: Int, height: Int)? {
        if case .aspect(let w, let h) = self[name] { return (w, h) }
        return nil
    }

    /// A length in pixels at full size (scale 1), a percentage taken of `base` pixels. Geometry is
    /// computed at full size; the renderer scales px values for a display-size render.
    func fullSizePixels(_ name: String, base: Int) -> Double? {
        length(name)?.pixels(base: Double(base), scale: 1)
    }
}

extension Operations {
    /// `min` must be below `max` (clip, the luminance mask); the problem points at the key given.
    static func minBelowMax(_ params: ParamSet) -> [ParamProblem] {
        let low = params.number("min") ?? 0, high = params.number("max") ?? 1
        guard !(low < high) else { return [] }
        let at = params.isGiven("max") && !params.isGiven("min") ? "max" : "min"
        return [ParamProblem(
            at, "min (\(NumberFormatting.shortest(low))) must be below max (\(NumberFormatting.shortest(high)))")]
    }
}
