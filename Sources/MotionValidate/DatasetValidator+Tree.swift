import MotionDataset
import Foundation

/// What is at a path, from `lstat(2)`: links are not followed and nothing is opened, so a FIFO
/// or a device in the folder can never make validate wait or read from it.
enum _EntryKind: Equatable {
    case regular
    case directory
    case symlink
    case fifo
    case socket
    case characterDevice
    case blockDevice
    case missing
    /// `lstat` failed for another reason (the errno text).
    case unreadable(String)

    init(lstatAt path: String) {
        var st = stat()
        guard lstat(path, &st) == 0 else {
            self = errno == ENOENT || errno == ENOTDIR ? .missing : .unreadable(String(cString: strerror(errno)))
            return
        }
        switch st.st_mode & S_IFMT {
        case S_IFREG: self = .regular
        case S_IFDIR: self = .directory
        case S_IFLNK: self = .symlink
        case S_IFIFO: self = .fifo
        case S_IFSOCK: self = .socket
        case S_IFCHR: self = .characterDevice
        case S_IFBLK: self = .blockDevice
        default: self = .unreadable("unknown file type")
        }
    }

    /// "a symbolic link", "a FIFO (named pipe)", … for messages.
    var phrase: String {
        switch self {
        case .regular: "a regular file"
        case .directory: "a folder"
        case .symlink: "a symbolic link"
        case .fifo: "a FIFO (named pipe)"
        case .socket: "a socket"
        case .characterDevice: "a character device"
        case .blockDevice: "a block device"
        case .missing: "missing"
        case .unreadable(let why): "not inspectable (\(why))"
        }
    }
}

/// `files.unlisted` and `files.regular`: the folder holds the manifest's files and nothing else.
extension _ValidationRun {
    /// Top-level files a person may keep beside a dataset without listing them: a description
    /// (`README`, `README.md`, … in any letter case) and the page `motionprep report -o` writes.
    /// Loaders read only the files the manifest lists, so these never reach training.
    static func isAllowedUnlisted(_ relative: String) -> Bool {
        guard !relative.contains("/") else { return false }
        let lower = relative.lowercased()
        return lower == "readme" || lower.hasPrefix("readme.") || lower == "report.html"
    }

    /// What is at `relative` inside the dataset folder, every component checked with `lstat`:
    /// a parent that is a symbolic link (or anything but a folder) is reported as what it is,
    /// with its own relative path, so nothing is reached through a link.
    func entryKind(_ relative: String) -> (kind: _EntryKind, at: String) {
        let parts = relative.split(separator: "/").map(String.init)
        var current = ""
        for (i, part) in parts.enumerated() {
            current = current.isEmpty ? part : current + "/" + part
            let kind = _EntryKind(lstatAt: path(current))
            if i == parts.count - 1 || kind != .directory { return (kind, current) }
        }
        return (.missing, relative)
    }

    /// Every entry under the folder (relative paths, sorted by UTF-8 bytes) with its kind; folders
    /// are descended, symbolic links never.
    func walkTree() -> (entries: [(path: String, kind: _EntryKind)], unlistable: [String]) {
        var entries: [(path: String, kind: _EntryKind)] = []
        var unlistable: [String] = []
        var pending = [""]
        while let relative = pending.popLast() {
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: relative.isEmpty ? directory : path(relative))
            } catch {
                unlistable.append(relative.isEmpty ? "." : relative)
                continue
            }
            for name in names {
                let child = relative.isEmpty ? name : relative + "/" + name
                let kind = _EntryKind(lstatAt: path(child))
                entries.append((child, kind))
                if kind == .directory { pending.append(child) }
            }
        }
        entries.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        return (entries, unlistable)
    }

    /// `files.unlisted`: every regular file under the folder is `manifest.json`, `SHA256SUMS`, a
    /// listed data file, or an allowed top-level document (``isAllowedUnlisted(_:)``), whatever
    /// its name, extension or letter case. `files.regular`: nothing under the folder is a
    /// symbolic link, FIFO, socket or device (a listed path, `manifest.json` and `SHA256SUMS`
    /// are reported by their own checks instead).
    func checkTree() {
        builder.ran(.filesUnlisted)
        builder.ran(.filesRegular)
        let listed = Set(manifest.files.map(\.path))
        let own: Set<String> = [Self.manifestName, Self.sumsName]
        let (entries, unlistable) = walkTree()
        for folder in unlistable {
            builder.fail(.filesUnlisted, folder, "is a folder that cannot be listed, so what it holds cannot be checked")
        }
        for (item, kind) in entries {
            switch kind {
            case .directory:
                continue
            case .regular:
                if listed.contains(item) || own.contains(item) || Self.isAllowedUnlisted(item) { continue }
                builder.fail(.filesUnlisted, item,
                             "is a file the manifest does not list (left from another run, or added by hand), so no checksum covers it; remove it or regenerate the dataset (only manifest.json, SHA256SUMS, the listed files, and a top-level README* or report.html may be in a dataset folder)")
            default:
                if listed.contains(item) || own.contains(item) { continue }
                builder.fail(.filesRegular, item,
                             "is \(kind.phrase); a dataset folder holds only regular files and folders, so it is neither opened nor followed")
            }
        }
    }
}
