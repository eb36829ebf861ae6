/// A picture of a photo the page asks for by name (`/api/photo/N/NAME.jpg`).
///
/// ```swift
/// PreviewPicture("stage-3")     // .stage(3): the thumbnail after stage 3
/// PreviewPicture("upto-9999")   // nil: 404 (stages are numbered up to 256)
/// ```
package enum PreviewPicture: Sendable, Hashable {
    /// The live render (the last good one).
    case render
    /// A region at full size (its rectangle travels in the query).
    case region
    /// The photo alone.
    case before
    /// The grid's thumbnail.
    case thumb
    /// The thumbnail after stage K (0: the photo with no stage).
    case stage(Int)
    /// Display size up to stage K.
    case upTo(Int)

    /// The most stages a picture can name (as many as a stage toggle).
    package static let stages = 256

    /// Parses a name: `render`, `region`, `before`, `thumb`, `stage-K`, `upto-K` (K from 0 to
    /// 256, digits only); nil for anything else.
    package init?(_ name: Substring) {
        switch name {
        case "render": self = .render
        case "region": self = .region
        case "before": self = .before
        case "thumb": self = .thumb
        default:
            guard let dash = name.firstIndex(of: "-"), name[name.index(after: dash)...].first != "-",
                  let k = PreviewAccess.decimal(name[name.index(after: dash)...], in: 0...Self.stages) else { return nil }
            switch name[..<dash] {
            case "stage": self = .stage(k)
            case "upto": self = .upTo(k)
            default: return nil
            }
        }
    }

    /// The name it is asked for by (and cached under).
    package var name: String {
        switch self {
        case .render: "render"
        case .region: "region"
        case .before: "before"
        case .thumb: "thumb"
        case .stage(let k): "stage-\(k)"
        case .upTo(let k): "upto-\(k)"
        }
    }
}
