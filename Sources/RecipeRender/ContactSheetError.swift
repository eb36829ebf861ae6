/// Why `ContactSheet.render` made no sheet. Thrown rather than trapped: the tiles and the layout
/// come from a command line (`recipe history PHOTO --sheet OUT.png --columns N`), so a bad value
/// is the user's to fix, reported in one line.
///
/// ```
/// recipe: history sheet: no tiles to lay out
/// ```
public enum ContactSheetError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The tile list was empty. An empty sheet would be a valid image that says nothing, so the
    /// caller decides what "no history" should print instead.
    case noTiles
    /// A layout setting is out of range (a box side or scale below 1, a negative margin, zero
    /// columns) or the sheet would be too large; the text says which.
    case invalidLayout(String)

    public var description: String {
        switch self {
        case .noTiles: return "no tiles to lay out"
        case .invalidLayout(let reason): return reason
        }
    }
}
