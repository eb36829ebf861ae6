import RecipeCore
@testable import RecipeOps

/// Builds the `ParamSet` the checker would hand an op: the given values, then every declared
/// default for the keys left out.
func checkedParams(_ params: [ParamSpec], _ given: [String: ParamValue]) -> ParamSet {
    var set = ParamSet()
    for spec in params {
        if let value = given[spec.name] {
            set.set(spec.name, value, given: true)
        } else if let value = spec.defaultValue {
            set.set(spec.name, value, given: false)
        }
    }
    precondition(Set(given.keys).isSubset(of: params.map(\.name)), "a test gives an undeclared key: \(given.keys)")
    return set
}

extension OperationSpec {
    /// Runs `validate` on the given values plus defaults.
    func problems(_ given: [String: ParamValue] = [:]) -> [ParamProblem] {
        validate(checkedParams(params, given))
    }

    /// The output size for an input of `width`×`height` with the given values plus defaults.
    func size(_ width: Int, _ height: Int, _ given: [String: ParamValue] = [:]) -> CanvasSize {
        geometry(CanvasSize(width: width, height: height), checkedParams(params, given))
    }
}

extension MaskSpec {
    /// Runs `validate` on the given values plus defaults.
    func problems(_ given: [String: ParamValue] = [:]) -> [ParamProblem] {
        validate(checkedParams(params, given))
    }
}

/// `w`×`h`, for comparisons.
func size(_ w: Int, _ h: Int) -> CanvasSize { CanvasSize(width: w, height: h) }
