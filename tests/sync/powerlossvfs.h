// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QString>

namespace marquee::test {

/**
 * @brief A SQLite VFS that models a disk cache lost on power failure.
 *
 * It wraps the default VFS: xWrite keeps data in memory (visible to every connection of this process, like the
 * OS page cache), and only xSync writes it to the real file and syncs it. So at any moment the real files hold
 * exactly what survived a power cut: copying them elsewhere (powerCutCopy) and opening the copy shows what a
 * machine would find after rebooting. Not used by production code.
 */
class PowerLossVfs
{
public:
    /** @brief Install as the process default VFS; the destructor restores the previous default. */
    PowerLossVfs();
    ~PowerLossVfs();
    PowerLossVfs(const PowerLossVfs &) = delete;
    PowerLossVfs &operator=(const PowerLossVfs &) = delete;

    /** @brief Bytes written but not yet synced, across all files. */
    static qint64 unsyncedBytes();
    /**
     * @brief Copy the durable state of @p databasePath (the file and its -wal, not the -shm) to @p targetPath:
     * what a power cut right now would leave.
     */
    static bool powerCutCopy(const QString &databasePath, const QString &targetPath);
};

} // namespace marquee::test
