// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "authrepository.h"
#include "database.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <functional>
#include <optional>

namespace marquee::store {

/** @brief One entry of the append-only audit log. */
struct AuditEntry {
    QString action;  ///< e.g. "show.create"
    QString target;  ///< e.g. "show:42"
    QString reason;
    QJsonObject details;
};

/** @brief A device's self-report. */
struct Heartbeat {
    int queueLength = 0;
    QString printerState;
    QString appVersion;
    /** @brief The device's latest reconciliation summary (checked by the route); absent: the stored one stays. */
    std::optional<QJsonObject> reconciliation;
};

/** @brief Filters of the audit report. */
struct AuditQuery {
    QDateTime from;
    QDateTime to;
    QString actor;
    QString action;
    int limit = 500;
};

/** @brief The staff audit log and the device fleet. */
class StaffRepository
{
public:
    explicit StaffRepository(const Database &database);

    /** @brief Append an audit entry on @p db (inside the caller's transaction when it has one). */
    static bool appendAudit(QSqlDatabase &db, const Principal &actor, const AuditEntry &entry);
    bool appendAudit(const Principal &actor, const AuditEntry &entry);
    /**
     * @brief Work for a show write's transaction (ShowRepository::AlsoInTransaction) that appends @p entry with
     * the target "show:<id>", so the change and its audit row commit together or not at all.
     */
    static std::function<bool(QSqlDatabase &, qint64)> auditShow(const Principal &actor, const AuditEntry &entry);
    std::optional<QJsonArray> audit(const AuditQuery &query);

    bool recordHeartbeat(qint64 deviceId, const Heartbeat &heartbeat);
    /** @brief Every device with its health; online when seen within @p onlineWindowSeconds. */
    std::optional<QJsonArray> devices(int onlineWindowSeconds);

private:
    const Database &m_database;
};

} // namespace marquee::store
