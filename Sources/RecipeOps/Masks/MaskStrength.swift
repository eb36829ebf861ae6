import RecipeCore

extension Operations {
    /// The parameters every mask kind accepts after its own: `invert` and `amount`.
    static let maskStrengthParams: [ParamSpec] = [
        ParamSpec("invert", .boolean, default: .boolean(false),
                  "apply the stage where the mask would leave it out, and the reverse"),
        ParamSpec("amount", .number(0...1, unit: .none), default: .number(1),
                  "overall strength of the mask; 0 leaves the stage's input unchanged"),
    ]
}
