// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QJsonObject>
#include <QString>

namespace marquee::store {

/** @brief One entry of the append-only audit log (written by StaffRepository::appendAudit, also inside other
 *  repositories' transactions, so the action and its audit row commit together). */
struct AuditEntry {
    QString action;  ///< e.g. "show.create"
    QString target;  ///< e.g. "show:42"
    QString reason;
    QJsonObject details;
};

} // namespace marquee::store
