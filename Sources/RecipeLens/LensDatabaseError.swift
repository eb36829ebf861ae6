/// Why lensfun's database cannot be used: the library or its data is not installed. A failure of
/// the system, not of the recipe (STYLE rule 4), so it says what to install.
///
/// ```swift
/// do { _ = try LensDatabase.shared() } catch { print(error) }
/// // lens corrections need lensfun: liblensfun.so.1: cannot open shared object file … (install liblensfun1)
/// ```
public enum LensDatabaseError: Error, Sendable, CustomStringConvertible {
    /// liblensfun cannot be loaded (the loader's message).
    case libraryMissing(String)
    /// The library loaded but found no database (its data package is missing), or the folder
    /// given holds none.
    case dataMissing(directory: String?)
    case outOfMemory

    public var description: String {
        switch self {
        case .libraryMissing(let why):
            "lens corrections need lensfun: \(why) (install liblensfun1)"
        case .dataMissing(nil):
            "lens corrections need lensfun's database, and none was found (install liblensfun-data-v1, or run lensfun-update-data)"
        case .dataMissing(let directory?):
            "no lensfun database in \(directory) (no readable XML file of lenses)"
        case .outOfMemory:
            "out of memory while reading lensfun's database"
        }
    }
}
