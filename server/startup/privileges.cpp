// SPDX-License-Identifier: AGPL-3.0-or-later
#include "startup/privileges.h"
#include "logging.h"

#include <QDir>
#include <QFile>
#include <QLoggingCategory>
#include <cerrno>
#include <cstring>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace marquee {

namespace {
QString systemError()
{
    return QString::fromLocal8Bit(std::strerror(errno));
}
} // namespace

bool settleUser(const QString &user, const QString &dataDirectory, QString *error)
{
    if (::geteuid() != 0) {
        if (!user.isEmpty() && user != QString::fromLocal8Bit(::getpwuid(::geteuid()) ? ::getpwuid(::geteuid())->pw_name : "")) {
            *error = QStringLiteral("--user %1 needs root (this process already runs as uid %2)").arg(user).arg(::geteuid());
            return false;
        }
        return true;
    }
    if (user.isEmpty()) {
        if (qEnvironmentVariable("MARQUEE_UNSAFE_ALLOW_ROOT") == QLatin1String("1")) {
            qCWarning(lcStore) << "running as root (MARQUEE_UNSAFE_ALLOW_ROOT=1): for tests only; a venue runs the server as its own user";
            return true;
        }
        *error = QStringLiteral("refusing to run as root: start it as its own user, or as root with --user NAME to drop to that user "
                                "(MARQUEE_UNSAFE_ALLOW_ROOT=1 allows root, for tests only)");
        return false;
    }
    const QByteArray name = user.toLocal8Bit();
    const passwd *pw = ::getpwnam(name.constData());
    if (!pw) {
        *error = QStringLiteral("--user %1: no such user").arg(user);
        return false;
    }
    if (pw->pw_uid == 0) {
        *error = QStringLiteral("--user must name an unprivileged user, not %1").arg(user);
        return false;
    }
    const uid_t uid = pw->pw_uid;
    const gid_t gid = pw->pw_gid;
    const QByteArray home = pw->pw_dir;
    // The data directory (the embedded cluster, the key-encryption key, the database passwords) is the user's.
    const QByteArray directory = QFile::encodeName(dataDirectory);
    struct stat info {};
    if (::stat(directory.constData(), &info) != 0) {
        if (!QDir().mkpath(dataDirectory) || ::chown(directory.constData(), uid, gid) != 0 || ::chmod(directory.constData(), 0700) != 0) {
            *error = QStringLiteral("cannot create the data directory %1 for %2: %3").arg(dataDirectory, user, systemError());
            return false;
        }
    } else if (info.st_uid != uid) {
        *error = QStringLiteral("the data directory %1 belongs to uid %2, not to %3 (chown -R %3: %1)").arg(dataDirectory).arg(info.st_uid).arg(user);
        return false;
    }
    if (::initgroups(name.constData(), gid) != 0 || ::setgid(gid) != 0 || ::setuid(uid) != 0) {
        *error = QStringLiteral("cannot become %1: %2").arg(user, systemError());
        return false;
    }
    if (::setuid(0) == 0 || ::geteuid() == 0) {
        *error = QStringLiteral("still root after becoming %1").arg(user);
        return false;
    }
    qputenv("HOME", home);
    qputenv("USER", name);
    qputenv("LOGNAME", name);
    qCInfo(lcStore).noquote() << "running as" << user;
    return true;
}

} // namespace marquee
