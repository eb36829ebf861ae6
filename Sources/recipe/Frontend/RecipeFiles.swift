import RecipeCore
#if canImport(Glibc)
import Glibc
import RecipeSession
#endif

/// Expands the command line's files and folders into recipe files: a folder means every
/// `*.recipe.yaml` (or `.recipe.yml`) below it, in sorted order so output is stable; a file is taken
/// as given, whatever its name.
enum RecipeFiles {
    static func expand(_ arguments: [String]) -> (files: [String], missing: [String]) {
        var files: [String] = []
        var missing: [String] = []
        for argument in arguments {
            var st = stat()
            guard stat(argument, &st) == 0 else {
                missing.append(argument)
                continue
            }
            if (st.st_mode & S_IFMT) == S_IFDIR {
                walk(argument, into: &files)
            } else {
                files.append(argument)
            }
        }
        return (files, missing)
    }

    static func isRecipeName(_ name: String) -> Bool {
        name.hasSuffix(".recipe.yaml") || name.hasSuffix(".recipe.yml")
    }

    private static func walk(_ folder: String, into files: inout [String]) {
        guard let dir = opendir(folder) else { return }
        var names: [(String, Bool)] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix(".") { continue }  // ., .., .git and hidden files
            let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
            var st = stat()
            guard lstat(path, &st) == 0 else { continue }
            let isDir = (st.st_mode & S_IFMT) == S_IFDIR
            if isDir || ((st.st_mode & S_IFMT) == S_IFREG && isRecipeName(name)) { names.append((path, isDir)) }
        }
        closedir(dir)
        for (path, isDir) in names.sorted(by: { $0.0 < $1.0 }) {
            if isDir { walk(path, into: &files) } else { files.append(path) }
        }
    }

    /// True when stdout is a terminal and colour is not turned off (NO_COLOR).
    static var colorOutput: Bool { isatty(1) != 0 && getenv("NO_COLOR") == nil }
}
