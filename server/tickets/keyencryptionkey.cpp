// SPDX-License-Identifier: AGPL-3.0-or-later
#include "tickets/keyencryptionkey.h"

#include "core/keyseal.h"
#include "store/secretfile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <openssl/rand.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace marquee::KeyEncryptionKey {

namespace {
QString systemError(const QString &what, const QString &path)
{
    return QStringLiteral("%1 %2: %3").arg(what, path, QString::fromLocal8Bit(std::strerror(errno)));
}
} // namespace

std::optional<QByteArray> load(const QString &path, QString *error)
{
    const QByteArray name = QFile::encodeName(path);
    const int fd = ::open(name.constData(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        *error = systemError(QStringLiteral("cannot open the key-encryption key"), path);
        return std::nullopt;
    }
    struct stat info {};
    QByteArray key(KeySeal::kKeyBytes + 1, '\0');
    const bool statOk = ::fstat(fd, &info) == 0;
    const ssize_t got = statOk ? ::read(fd, key.data(), key.size()) : -1;
    ::close(fd);
    if (!statOk || got < 0) {
        *error = systemError(QStringLiteral("cannot read the key-encryption key"), path);
        return std::nullopt;
    }
    // A systemd credential is private to the service however its ACL shows in the mode bits.
    if ((info.st_mode & (S_IRWXG | S_IRWXO)) != 0 && !store::SecretFile::inCredentialsDirectory(path)) {
        // Like ssh with a private key: a key others can read is not a secret any more; make the operator look.
        *error = QStringLiteral("the key-encryption key %1 is accessible by other users (mode %2); chmod 600 it")
                     .arg(path)
                     .arg(info.st_mode & 07777, 4, 8, QLatin1Char('0'));
        return std::nullopt;
    }
    const passwd *postgres = ::getpwnam("postgres");
    if (info.st_uid != ::geteuid() && info.st_uid != 0 && (::geteuid() != 0 || (postgres && info.st_uid == postgres->pw_uid))) {
        // Another user owns it (postgres, after an old start as root handed it the data directory): that user can
        // read the key, so it is no longer the server's secret alone. (Root may use the service user's key:
        // marquee-admin run as root.)
        *error = QStringLiteral("the key-encryption key %1 belongs to another user (uid %2); chown it to the server's user (uid %3)")
                     .arg(path)
                     .arg(info.st_uid)
                     .arg(::geteuid());
        return std::nullopt;
    }
    if (got != KeySeal::kKeyBytes) {
        *error = QStringLiteral("the key-encryption key %1 is not %2 bytes long").arg(path).arg(KeySeal::kKeyBytes);
        return std::nullopt;
    }
    key.truncate(KeySeal::kKeyBytes);
    return key;
}

std::optional<QByteArray> loadOrCreate(const QString &path, QString *error)
{
    if (QFileInfo::exists(path))
        return load(path, error);
    if (!QDir().mkpath(QFileInfo(path).absolutePath())) {
        *error = QStringLiteral("cannot create the directory of %1").arg(path);
        return std::nullopt;
    }
    QByteArray key(KeySeal::kKeyBytes, Qt::Uninitialized);
    if (RAND_bytes(reinterpret_cast<unsigned char *>(key.data()), KeySeal::kKeyBytes) != 1) {
        *error = QStringLiteral("no random bytes for the key-encryption key");
        return std::nullopt;
    }
    // Write a private temporary file completely, then link it into place: link() fails when the name exists,
    // so of two servers creating it at once one wins and the other reads the winner's complete file.
    const QByteArray temporary = QFile::encodeName(path + QStringLiteral(".%1.tmp").arg(::getpid()));
    const int fd = ::open(temporary.constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        *error = systemError(QStringLiteral("cannot create the key-encryption key"), path);
        return std::nullopt;
    }
    const bool written = ::fchmod(fd, 0600) == 0 && ::write(fd, key.constData(), key.size()) == key.size() && ::fsync(fd) == 0;
    ::close(fd);
    const bool linked = written && ::link(temporary.constData(), QFile::encodeName(path).constData()) == 0;
    const int linkErrno = errno;
    ::unlink(temporary.constData());
    if (!written) {
        *error = systemError(QStringLiteral("cannot write the key-encryption key"), path);
        return std::nullopt;
    }
    if (!linked) {
        if (linkErrno == EEXIST)
            return load(path, error);
        errno = linkErrno;
        *error = systemError(QStringLiteral("cannot create the key-encryption key"), path);
        return std::nullopt;
    }
    return key;
}

} // namespace marquee::KeyEncryptionKey
