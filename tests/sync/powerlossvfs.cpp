// SPDX-License-Identifier: AGPL-3.0-or-later
#include "powerlossvfs.h"

#include <QFile>
#include <cstring>
#include <map>
#include <mutex>
#include <sqlite3.h>
#include <string>
#include <vector>

namespace marquee::test {

namespace {

struct PendingWrite {
    sqlite3_int64 offset;
    std::vector<char> data;
};

// Unsynced writes per file path, shared by every handle of that path (like the OS page cache).
std::mutex g_mutex;
std::map<std::string, std::vector<PendingWrite>> g_pending;
sqlite3_vfs *g_base = nullptr;
sqlite3_vfs g_vfs;

struct PlFile {
    sqlite3_file base;
    sqlite3_file *real;
    std::string path;
};

sqlite3_file *real(sqlite3_file *file)
{
    return reinterpret_cast<PlFile *>(file)->real;
}

int realSize(sqlite3_file *file, sqlite3_int64 *size)
{
    return real(file)->pMethods->xFileSize(real(file), size);
}

int plClose(sqlite3_file *file)
{
    auto *f = reinterpret_cast<PlFile *>(file);
    const int rc = f->real->pMethods ? f->real->pMethods->xClose(f->real) : SQLITE_OK;
    sqlite3_free(f->real);
    f->path.~basic_string();
    return rc;
}

int plRead(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset)
{
    auto *f = reinterpret_cast<PlFile *>(file);
    std::lock_guard lock(g_mutex);
    int rc = f->real->pMethods->xRead(f->real, buffer, amount, offset);
    if (rc != SQLITE_OK && rc != SQLITE_IOERR_SHORT_READ)
        return rc;
    sqlite3_int64 size = 0;
    realSize(file, &size);
    char *out = static_cast<char *>(buffer);
    // Later writes win: apply them in order over what the disk has.
    for (const PendingWrite &w : g_pending[f->path]) {
        const sqlite3_int64 wEnd = w.offset + static_cast<sqlite3_int64>(w.data.size());
        size = std::max(size, wEnd);
        const sqlite3_int64 from = std::max(offset, w.offset);
        const sqlite3_int64 to = std::min(offset + amount, wEnd);
        if (from < to)
            std::memcpy(out + (from - offset), w.data.data() + (from - w.offset), static_cast<size_t>(to - from));
    }
    if (offset + amount > size) {
        const sqlite3_int64 valid = std::max<sqlite3_int64>(0, size - offset);
        std::memset(out + valid, 0, static_cast<size_t>(amount - valid));
        return SQLITE_IOERR_SHORT_READ;
    }
    return SQLITE_OK;
}

int plWrite(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset)
{
    auto *f = reinterpret_cast<PlFile *>(file);
    std::lock_guard lock(g_mutex);
    const char *in = static_cast<const char *>(buffer);
    g_pending[f->path].push_back({offset, std::vector<char>(in, in + amount)});
    return SQLITE_OK;
}

// Write the pending data of a path to the real file (caller holds the mutex).
int flushPending(PlFile *f)
{
    auto &writes = g_pending[f->path];
    for (const PendingWrite &w : writes) {
        const int rc = f->real->pMethods->xWrite(f->real, w.data.data(), static_cast<int>(w.data.size()), w.offset);
        if (rc != SQLITE_OK)
            return rc;
    }
    writes.clear();
    return SQLITE_OK;
}

int plTruncate(sqlite3_file *file, sqlite3_int64 size)
{
    auto *f = reinterpret_cast<PlFile *>(file);
    std::lock_guard lock(g_mutex);
    // Simplification: a truncate makes earlier writes durable first (SQLite syncs before it truncates anyway).
    const int rc = flushPending(f);
    if (rc != SQLITE_OK)
        return rc;
    return f->real->pMethods->xTruncate(f->real, size);
}

int plSync(sqlite3_file *file, int flags)
{
    auto *f = reinterpret_cast<PlFile *>(file);
    std::lock_guard lock(g_mutex);
    const int rc = flushPending(f);
    if (rc != SQLITE_OK)
        return rc;
    return f->real->pMethods->xSync(f->real, flags);
}

int plFileSize(sqlite3_file *file, sqlite3_int64 *size)
{
    auto *f = reinterpret_cast<PlFile *>(file);
    std::lock_guard lock(g_mutex);
    const int rc = realSize(file, size);
    if (rc != SQLITE_OK)
        return rc;
    for (const PendingWrite &w : g_pending[f->path])
        *size = std::max(*size, w.offset + static_cast<sqlite3_int64>(w.data.size()));
    return SQLITE_OK;
}

int plLock(sqlite3_file *file, int lock) { return real(file)->pMethods->xLock(real(file), lock); }
int plUnlock(sqlite3_file *file, int lock) { return real(file)->pMethods->xUnlock(real(file), lock); }
int plCheckReservedLock(sqlite3_file *file, int *out) { return real(file)->pMethods->xCheckReservedLock(real(file), out); }
int plFileControl(sqlite3_file *file, int op, void *arg)
{
    // Size hints and chunk sizes would write around us; the rest is harmless to pass on.
    if (op == SQLITE_FCNTL_SIZE_HINT || op == SQLITE_FCNTL_CHUNK_SIZE || op == SQLITE_FCNTL_MMAP_SIZE)
        return SQLITE_OK;
    return real(file)->pMethods->xFileControl(real(file), op, arg);
}
int plSectorSize(sqlite3_file *file) { return real(file)->pMethods->xSectorSize(real(file)); }
int plDeviceCharacteristics(sqlite3_file *file) { return 0; } // claim nothing: no atomic or safe-append writes
int plShmMap(sqlite3_file *file, int page, int size, int extend, void volatile **out)
{
    return real(file)->pMethods->xShmMap(real(file), page, size, extend, out);
}
int plShmLock(sqlite3_file *file, int offset, int n, int flags) { return real(file)->pMethods->xShmLock(real(file), offset, n, flags); }
void plShmBarrier(sqlite3_file *file) { real(file)->pMethods->xShmBarrier(real(file)); }
int plShmUnmap(sqlite3_file *file, int deleteFlag) { return real(file)->pMethods->xShmUnmap(real(file), deleteFlag); }

const sqlite3_io_methods g_methods = {
    2, // version 2: shared memory (WAL) but no xFetch, so no mmap bypasses the overlay
    plClose, plRead, plWrite, plTruncate, plSync, plFileSize, plLock, plUnlock, plCheckReservedLock, plFileControl,
    plSectorSize, plDeviceCharacteristics, plShmMap, plShmLock, plShmBarrier, plShmUnmap, nullptr, nullptr,
};

int plOpen(sqlite3_vfs *, sqlite3_filename name, sqlite3_file *file, int flags, int *outFlags)
{
    auto *f = reinterpret_cast<PlFile *>(file);
    f->base.pMethods = nullptr;
    f->real = static_cast<sqlite3_file *>(sqlite3_malloc(g_base->szOsFile));
    if (!f->real)
        return SQLITE_NOMEM;
    std::memset(f->real, 0, g_base->szOsFile);
    const int rc = g_base->xOpen(g_base, name, f->real, flags, outFlags);
    if (rc != SQLITE_OK) {
        sqlite3_free(f->real);
        return rc;
    }
    new (&f->path) std::string(name ? name : "");
    f->base.pMethods = &g_methods;
    return SQLITE_OK;
}

int plDelete(sqlite3_vfs *, const char *name, int syncDir)
{
    {
        std::lock_guard lock(g_mutex);
        g_pending.erase(name);
    }
    return g_base->xDelete(g_base, name, syncDir);
}
int plAccess(sqlite3_vfs *, const char *name, int flags, int *out) { return g_base->xAccess(g_base, name, flags, out); }
int plFullPathname(sqlite3_vfs *, const char *name, int n, char *out) { return g_base->xFullPathname(g_base, name, n, out); }
void *plDlOpen(sqlite3_vfs *, const char *name) { return g_base->xDlOpen(g_base, name); }
void plDlError(sqlite3_vfs *, int n, char *out) { g_base->xDlError(g_base, n, out); }
void (*plDlSym(sqlite3_vfs *, void *handle, const char *symbol))(void) { return g_base->xDlSym(g_base, handle, symbol); }
void plDlClose(sqlite3_vfs *, void *handle) { g_base->xDlClose(g_base, handle); }
int plRandomness(sqlite3_vfs *, int n, char *out) { return g_base->xRandomness(g_base, n, out); }
int plSleep(sqlite3_vfs *, int us) { return g_base->xSleep(g_base, us); }
int plCurrentTime(sqlite3_vfs *, double *out) { return g_base->xCurrentTime(g_base, out); }
int plGetLastError(sqlite3_vfs *, int n, char *out) { return g_base->xGetLastError ? g_base->xGetLastError(g_base, n, out) : 0; }
int plCurrentTimeInt64(sqlite3_vfs *, sqlite3_int64 *out) { return g_base->xCurrentTimeInt64(g_base, out); }

} // namespace

PowerLossVfs::PowerLossVfs()
{
    sqlite3_initialize();
    g_base = sqlite3_vfs_find(nullptr);
    std::memset(&g_vfs, 0, sizeof g_vfs);
    g_vfs.iVersion = 2;
    g_vfs.szOsFile = sizeof(PlFile);
    g_vfs.mxPathname = g_base->mxPathname;
    g_vfs.zName = "marquee-powerloss";
    g_vfs.xOpen = plOpen;
    g_vfs.xDelete = plDelete;
    g_vfs.xAccess = plAccess;
    g_vfs.xFullPathname = plFullPathname;
    g_vfs.xDlOpen = plDlOpen;
    g_vfs.xDlError = plDlError;
    g_vfs.xDlSym = plDlSym;
    g_vfs.xDlClose = plDlClose;
    g_vfs.xRandomness = plRandomness;
    g_vfs.xSleep = plSleep;
    g_vfs.xCurrentTime = plCurrentTime;
    g_vfs.xGetLastError = plGetLastError;
    g_vfs.xCurrentTimeInt64 = plCurrentTimeInt64;
    sqlite3_vfs_register(&g_vfs, 1);
}

PowerLossVfs::~PowerLossVfs()
{
    sqlite3_vfs_unregister(&g_vfs);
    sqlite3_vfs_register(g_base, 1);
    std::lock_guard lock(g_mutex);
    g_pending.clear();
}

qint64 PowerLossVfs::unsyncedBytes()
{
    std::lock_guard lock(g_mutex);
    qint64 total = 0;
    for (const auto &[path, writes] : g_pending) {
        for (const PendingWrite &w : writes)
            total += static_cast<qint64>(w.data.size());
    }
    return total;
}

bool PowerLossVfs::powerCutCopy(const QString &databasePath, const QString &targetPath)
{
    std::lock_guard lock(g_mutex); // no sync may land halfway through the copy
    for (const QString &suffix : {QString(), QStringLiteral("-wal")}) {
        QFile::remove(targetPath + suffix);
        if (QFile::exists(databasePath + suffix) && !QFile::copy(databasePath + suffix, targetPath + suffix))
            return false;
    }
    return true;
}

} // namespace marquee::test
