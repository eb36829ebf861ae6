import RecipeCodecs
import RecipeCore
#if canImport(Glibc)
import Glibc
#endif

/// One photo a batch found: where it is, its path below the folder it was found in (what
/// `--include`, `--exclude` and the `{dir}` of a name template see), and its stat.
public struct PhotoFile: Sendable, Equatable {
    /// The path as the batch opens it (the command-line folder joined with `relative`).
    public var path: String
    /// The path below the command-line folder (`2024/rome/IMG_1.jpg`); a file given by name is
    /// its own name.
    public var relative: String
    public var stat: FileStat
}

/// Expands the command line's files and folders into photos: folders are walked recursively in
/// name order (hidden names, `.git` included, are skipped; symbolic links to folders are not
/// followed, so a link loop cannot hang a batch); a file named on the command line is taken as
/// given. Without `--include`, photos are the files with an extension the codecs read.
///
/// Links to files are followed when their target lies inside the folder given (its real path),
/// or anywhere with `followLinks` (`--follow-links`): a folder handed over by someone else cannot
/// make a batch read, and print errors about, files elsewhere. Every entry with a photo's name
/// that is left out (a link leaving the folder, a dangling link, a link loop, a FIFO, a device)
/// is a `Problem` with `leftOut` set, so the batch names it and counts it; none is silent.
///
/// ```swift
/// let walk = PhotoWalk(include: [], exclude: [Glob("raw/**")])
/// let (photos, problems) = walk.expand(["shoot/", "cover.png"])
/// ```
public struct PhotoWalk: Sendable {
    public var include: [Glob]
    public var exclude: [Glob]
    /// Folders never walked into (the output folder when it lies inside an input folder).
    public var skipFolders: [String] = []
    /// Whether links to files outside the folder given are followed (`--follow-links`).
    public var followLinks = false

    /// Every extension the codecs read (`*.jpg`, `*.heic`, `*.tif`, `*.cr2`, `*.dng`, … in any case).
    public static let defaultInclude = (ImageFileFormat.knownExtensions + RawDetection.extensions).map { Glob("*.\($0)", caseInsensitive: true) }

    public init(include: [Glob], exclude: [Glob]) {
        self.include = include
        self.exclude = exclude
    }

    /// A path that could not be used, and why.
    public struct Problem: Sendable, Equatable {
        public var path: String
        public var message: String
        /// An entry left out on purpose (a link leaving the folder, a dangling link, a FIFO), not
        /// a failure: the batch names it and counts it apart.
        public var leftOut = false
    }

    /// The photos under `arguments`, each folder's in name order, and the arguments that do not exist.
    public func expand(_ arguments: [String]) -> (photos: [PhotoFile], problems: [Problem]) {
        var photos: [PhotoFile] = []
        var problems: [Problem] = []
        let skipped = Set(skipFolders.compactMap(Self.identity))
        for argument in arguments {
            var st = stat()
            guard stat(argument, &st) == 0 else {
                problems.append(Problem(path: argument, message: "no such file or folder"))
                continue
            }
            switch st.st_mode & S_IFMT {
            case S_IFDIR:
                let root = argument.count > 1 && argument.hasSuffix("/") ? String(argument.dropLast()) : argument
                let inside = followLinks ? nil : Self.realPath(root)
                walk(root, relative: "", inside: inside, skipped: skipped, into: &photos, problems: &problems)
            case S_IFREG:
                let name = argument.split(separator: "/").last.map(String.init) ?? argument
                if let why = RawDetection.unreadableReason(name) {
                    // Asked for by name: a failure, said as what it is (not as its output's name).
                    problems.append(Problem(path: argument, message: why))
                    continue
                }
                photos.append(PhotoFile(path: argument, relative: name, stat: FileStat(st)))
            default:
                problems.append(Problem(path: argument, message: "not a regular file or a folder"))
            }
        }
        return (photos, problems)
    }

    func wanted(_ relative: String) -> Bool {
        let included = (include.isEmpty ? Self.defaultInclude : include).contains { $0.matches(relative) }
        return included && !exclude.contains { $0.matches(relative) }
    }

    /// `inside`: the real path of the folder given, which links must stay in (nil: any).
    private func walk(_ folder: String, relative: String, inside: String?, skipped: Set<Identity>, into photos: inout [PhotoFile],
                      problems: inout [Problem]) {
        guard let dir = opendir(folder) else {
            problems.append(Problem(path: folder, message: "cannot read the folder: \(String(cString: strerror(errno)))"))
            return
        }
        var entries: [(name: String, folder: Bool, stat: FileStat?)] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix(".") { continue }
            let path = folder == "/" ? "/" + name : folder + "/" + name
            var st = stat()
            guard lstat(path, &st) == 0 else { continue }
            switch st.st_mode & S_IFMT {
            case S_IFDIR:
                if !skipped.contains(Identity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))) {
                    entries.append((name, true, nil))
                }
            case S_IFREG:
                entries.append((name, false, FileStat(st)))
            case S_IFLNK:
                // A link to a file inside the folder given is the file; a link to a folder is not
                // followed. What a photo's name leads nowhere good is named.
                let rel = relative.isEmpty ? name : relative + "/" + name
                var target = stat()
                guard stat(path, &target) == 0 else {
                    if wanted(rel) {
                        let why = errno == ELOOP ? "a link loop" : errno == ENOENT ? "a link to a file that is not there" : "a link that cannot be followed (\(String(cString: strerror(errno))))"
                        problems.append(Problem(path: path, message: why + "; left out", leftOut: true))
                    }
                    continue
                }
                let type = target.st_mode & S_IFMT
                guard type == S_IFREG else {
                    if type != S_IFDIR, wanted(rel) {
                        problems.append(Problem(path: path, message: "a link to \(InputFile.kindName(type)), not a photo; left out", leftOut: true))
                    }
                    continue
                }
                if let inside, let real = Self.realPath(path), !real.hasPrefix(inside == "/" ? "/" : inside + "/") {
                    if wanted(rel) {
                        problems.append(Problem(path: path, message: "a link to a file outside the folder given; left out (--follow-links follows it)", leftOut: true))
                    }
                    continue
                }
                entries.append((name, false, FileStat(target)))
            default:
                let rel = relative.isEmpty ? name : relative + "/" + name
                if wanted(rel) {
                    problems.append(Problem(path: path, message: "\(InputFile.kindName(st.st_mode & S_IFMT)), not a photo; left out", leftOut: true))
                }
                continue
            }
        }
        closedir(dir)
        entries.sort { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        for entry in entries {
            let path = folder == "/" ? "/" + entry.name : folder + "/" + entry.name
            let rel = relative.isEmpty ? entry.name : relative + "/" + entry.name
            if entry.folder {
                walk(path, relative: rel, inside: inside, skipped: skipped, into: &photos, problems: &problems)
            } else if let st = entry.stat, wanted(rel) {
                photos.append(PhotoFile(path: path, relative: rel, stat: st))
            } else if include.isEmpty, !exclude.contains(where: { $0.matches(rel) }), let why = RawDetection.unreadableReason(rel) {
                // A raw the codecs cannot read is named, not passed by as if it were no photo.
                problems.append(Problem(path: path, message: why + "; left out", leftOut: true))
            }
        }
    }

    struct Identity: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }

    static func identity(_ path: String) -> Identity? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return Identity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
    }
}
