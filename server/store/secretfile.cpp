// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/secretfile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <openssl/rand.h>
#include <sys/stat.h>
#include <unistd.h>

namespace marquee::store::SecretFile {

namespace {
QString systemError(const QString &what, const QString &path)
{
    return QStringLiteral("%1 %2: %3").arg(what, path, QString::fromLocal8Bit(std::strerror(errno)));
}
} // namespace

QString credential(const QString &name)
{
    const QString directory = qEnvironmentVariable("CREDENTIALS_DIRECTORY");
    if (directory.isEmpty())
        return {};
    const QString path = directory + QLatin1Char('/') + name;
    return QFileInfo(path).isFile() && QFileInfo(path).size() > 0 ? path : QString();
}

bool inCredentialsDirectory(const QString &path)
{
    const QString directory = qEnvironmentVariable("CREDENTIALS_DIRECTORY");
    return !directory.isEmpty() && QFileInfo(path).absolutePath() == QFileInfo(directory).absoluteFilePath();
}

std::optional<QByteArray> read(const QString &path, QString *error, bool anyOwner)
{
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        *error = systemError(QStringLiteral("cannot open the secret file"), path);
        return std::nullopt;
    }
    struct stat info {};
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        ::close(fd);
        *error = QStringLiteral("the secret file %1 is not a regular file").arg(path);
        return std::nullopt;
    }
    QByteArray content;
    char buffer[4096];
    for (;;) {
        const ssize_t got = ::read(fd, buffer, sizeof buffer);
        if (got < 0) {
            ::close(fd);
            *error = systemError(QStringLiteral("cannot read the secret file"), path);
            return std::nullopt;
        }
        if (got == 0 || content.size() > 65536)
            break;
        content.append(buffer, got);
    }
    ::close(fd);
    if ((info.st_mode & (S_IRWXG | S_IRWXO)) != 0 && !inCredentialsDirectory(path)) {
        *error = QStringLiteral("the secret file %1 is accessible by other users (mode %2); chmod 600 it")
                     .arg(path)
                     .arg(info.st_mode & 07777, 4, 8, QLatin1Char('0'));
        return std::nullopt;
    }
    if (!anyOwner && info.st_uid != ::geteuid() && ::geteuid() != 0) {
        *error = QStringLiteral("the secret file %1 belongs to another user (uid %2, this process runs as %3)")
                     .arg(path)
                     .arg(info.st_uid)
                     .arg(::geteuid());
        return std::nullopt;
    }
    if (content.endsWith('\n'))
        content.chop(1);
    if (content.endsWith('\r'))
        content.chop(1);
    return content;
}

std::optional<QString> loadOrCreatePassword(const QString &path, QString *error)
{
    if (!QFileInfo::exists(path)) {
        if (!QDir().mkpath(QFileInfo(path).absolutePath())) {
            *error = QStringLiteral("cannot create the directory of %1").arg(path);
            return std::nullopt;
        }
        unsigned char random[32];
        if (RAND_bytes(random, sizeof random) != 1) {
            *error = QStringLiteral("no random bytes for the password in %1").arg(path);
            return std::nullopt;
        }
        const QByteArray password = QByteArray(reinterpret_cast<const char *>(random), sizeof random).toHex() + '\n';
        // Written completely under a private name, then linked into place: link() fails when the name exists, so
        // of two processes creating it at once one wins and the other reads the winner's file.
        const QByteArray temporary = QFile::encodeName(path + QStringLiteral(".%1.tmp").arg(::getpid()));
        const int fd = ::open(temporary.constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0) {
            *error = systemError(QStringLiteral("cannot create the password file"), path);
            return std::nullopt;
        }
        const bool written = ::fchmod(fd, 0600) == 0 && ::write(fd, password.constData(), password.size()) == password.size()
                             && ::fsync(fd) == 0;
        ::close(fd);
        const bool linked = written && ::link(temporary.constData(), QFile::encodeName(path).constData()) == 0;
        const int linkErrno = errno;
        ::unlink(temporary.constData());
        if (!written || (!linked && linkErrno != EEXIST)) {
            errno = linkErrno;
            *error = systemError(QStringLiteral("cannot write the password file"), path);
            return std::nullopt;
        }
    }
    const auto content = read(path, error);
    if (!content)
        return std::nullopt;
    if (content->isEmpty()) {
        *error = QStringLiteral("the password file %1 is empty").arg(path);
        return std::nullopt;
    }
    return QString::fromUtf8(*content);
}

} // namespace marquee::store::SecretFile
