import Foundation
import RecipeLens
import TestSupport
import Testing

/// The database the tests match against: Debian's liblensfun-data-v1 (lensfun 0.3.3's data) where
/// that package installs it, read alone (not lensfun's own search, which would add data fetched by
/// lensfun-update-data and change what matches). lensfunpy reads the same files.
enum LensTestDatabase {
    static let directory = "/usr/share/lensfun/version_1"

    static let loaded: Result<LensDatabase, LensDatabaseError> = Result { () throws(LensDatabaseError) in
        try LensDatabase(directory: directory)
    }

    static func get() throws -> LensDatabase { try loaded.get() }

    /// Needs liblensfun and its data (a missing one fails under RECIPE_TEST_REQUIRE_ALL=1).
    static var required: ConditionTrait { Requirement.file(directory) }

    /// The fixtures folder beside this file.
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
}
