import Foundation

/// Files replaced whole: the snapshots of the core, of the API and of the projections.
package enum DurableFile {
    /// Writes `data` to `temporary`, syncs it, renames it over `path` and syncs the directory, so a
    /// crash or a full disk at any moment leaves either the old file or the new one, never a part,
    /// and a rename the machine acknowledged survives a power cut. `temporary` must be on the same
    /// file system as `path`; it is removed when the write fails.
    package static func replace(_ path: String, with data: Data, through temporary: String) throws {
        guard FileManager.default.createFile(atPath: temporary, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary])
        }
        do {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: temporary))
            defer { try? handle.close() }
            try handle.write(contentsOf: data)
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        }
        try install(temporary, as: path)
    }

    /// Syncs the complete file `temporary` (written by someone else: SQLite's `VACUUM INTO`, a
    /// download), renames it over `path` and syncs the directory, with `replace`'s guarantees.
    /// `temporary` is removed when this fails.
    package static func install(_ temporary: String, as path: String) throws {
        do {
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: temporary))
            defer { try? handle.close() }
            try handle.synchronize()
            guard rename(temporary, path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let directory = open(folder, O_RDONLY | O_DIRECTORY)
        guard directory >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(directory) }
        guard fsync(directory) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }
}
