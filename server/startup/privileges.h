// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QString>

namespace marquee {

/**
 * @brief What marquee-server does about running as root, before it opens anything.
 *
 * Not root: nothing. Root with @p user (--user NAME): the data directory is created for that user when missing
 * (and must be that user's when present), then the process takes the user's groups, group and user for good.
 * Root without it: refused, unless MARQUEE_UNSAFE_ALLOW_ROOT=1 (tests, CI containers and the bench scripts, which
 * run as root) — then it carries on as root with a warning.
 * False with @p error when the server must not start.
 */
bool settleUser(const QString &user, const QString &dataDirectory, QString *error);

} // namespace marquee
