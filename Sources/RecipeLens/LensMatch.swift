/// The outcome of matching a photo's lens against lensfun's database: one profile, with how it was
/// found; several that the file cannot tell apart (never a silent pick of the first); or none, with
/// why. `recipe info` prints `summary`; a `lens: auto` stage uses `profile` and `cropFactor`.
///
/// ```swift
/// switch database.match(query) {
/// case .matched(let m):   m.how        // "LensModel 'AF Nikkor 35mm f/2D' → Nikon AF Nikkor 35mm f/2D 66 (…, name normalised, crop 1 of the Nikon D800)"
/// case .ambiguous(let a): a.reason     // "… all fit maker-note lens ID 137 (shared by 10 lenses), and their calibrations at 18 mm differ"
/// case .none(let n):      n.reason     // .manualLens
/// }
/// ```
public enum LensMatch: Sendable, CustomStringConvertible {
    case matched(Matched)
    case ambiguous(Ambiguous)
    case none(Unmatched)

    /// A profile found for the photo.
    public struct Matched: Sendable {
        public var profile: LensProfile
        /// The crop factor of the photo's camera, which the profile is scaled to.
        public var cropFactor: Double
        public var cropFactorSource: CropFactorSource
        /// One line: what named the lens, the profile, and the rules that led there.
        public var how: String
    }

    /// Where the camera's crop factor came from.
    public enum CropFactorSource: Sendable, Equatable {
        /// lensfun's entry for the camera.
        case camera(LensCamera)
        /// The file's focal length in 35 mm terms over its focal length.
        case focalLength35mm
        /// Unknown: the profile's own is taken (the camera is assumed to have the sensor it was
        /// measured on).
        case profile
    }

    /// Profiles the file cannot tell apart and whose corrections differ.
    public struct Ambiguous: Sendable {
        public var candidates: [LensProfile]
        public var reason: String
    }

    /// Why no profile was found.
    public struct Unmatched: Sendable, CustomStringConvertible {
        public enum Reason: Sendable {
            /// The file names no lens (no LensModel, no maker-note ID, no lens specification).
            case noLensName
            /// The file says no lens the camera can identify was attached (a manual or adapted lens).
            case manualLens(String)
            /// The lens is named only by a maker-note ID this build's table does not know.
            case unknownLensID(Int64)
            /// The database has no profile of this lens.
            case noProfile
            /// Profiles of this lens exist, but none fits this camera's mount or sensor.
            case doesNotFit([LensProfile])
            /// The name gives no maker, and the only profiles with it are another maker's than the
            /// camera's: a lens of any maker could carry that name.
            case makerNotStated([LensProfile])
        }

        public var reason: Reason
        /// The reason's case name ("makerNotStated"), for tests and JSON.
        public var reasonName: String {
            switch reason {
            case .noLensName: "noLensName"
            case .manualLens: "manualLens"
            case .unknownLensID: "unknownLensID"
            case .noProfile: "noProfile"
            case .doesNotFit: "doesNotFit"
            case .makerNotStated: "makerNotStated"
            }
        }
        /// The lens as the file names it ("" when it does not).
        public var lens: String
        /// Close names in the database, for a "did you mean".
        public var suggestions: [String]
        /// What the sentence adds about the camera ("Nikon D750 (Nikon F AF, crop 1)").
        public var camera: String

        public var description: String {
            let named = lens.isEmpty ? "" : "'\(lens)': "
            let sentence: String
            switch reason {
            case .noLensName: sentence = "the file does not name its lens"
            case .manualLens(let what): sentence = "\(named)no lens the camera can identify (\(what))"
            case .unknownLensID(let id): sentence = "the file names its lens only by the maker-note ID \(id), which this build does not know"
            case .noProfile: sentence = "\(named)no profile of this lens in lensfun's database"
            case .doesNotFit(let p):
                sentence = "\(named)\(LensMatch.list(p)) do not fit \(camera.isEmpty ? "this camera" : camera) (mount or sensor size)"
            case .makerNotStated(let p):
                sentence = "\(named)the file does not name the lens's maker, and the only profiles of this name are another maker's "
                    + "(\(LensMatch.list(p))): name the profile in the recipe to use it"
            }
            return suggestions.isEmpty ? sentence : sentence + "; did you mean " + suggestions.map { "'\($0)'" }.joined(separator: ", ") + "?"
        }
    }

    /// The profile, when one was matched.
    public var profile: LensProfile? {
        if case .matched(let m) = self { return m.profile }
        return nil
    }

    /// One line for `recipe info` and messages.
    public var summary: String {
        switch self {
        case .matched(let m): m.how
        case .ambiguous(let a): "ambiguous: " + a.reason
        case .none(let n): "none: \(n)"
        }
    }

    public var description: String { summary }

    /// "A, B and C" of profiles' names (each once).
    static func list(_ profiles: [LensProfile]) -> String {
        var names: [String] = []
        for p in profiles where !names.contains(p.model) { names.append(p.model) }
        if names.count <= 1 { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " and " + names.last!
    }
}
