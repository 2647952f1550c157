// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "store/auditentry.h"
#include "store/authrepository.h"
#include "store/database.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <functional>
#include <optional>

namespace marquee::store {

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
    /** @brief The page's cursor: only entries older than this audit_id's (in newest-first order); 0 = the newest. */
    qint64 before = 0;
};

/** @brief One page of the audit report, newest first. */
struct AuditPage {
    QJsonArray rows;
    qint64 total = 0;        ///< entries matching the range and filters, over every page
    bool truncated = false;  ///< older entries follow this page
    qint64 nextBefore = 0;   ///< the cursor of the next page (the last row's audit_id) when truncated, else 0
};

/**
 * @brief Whether the role this connection runs as can silence the audit log (migration 025): in place when the
 * table and its trigger function are owned by another role this one is not a member of, and this role is neither
 * a superuser nor allowed to create roles (which could make it a member), and both triggers are enabled.
 */
struct AuditProtection {
    bool inPlace = false;
    QString role;    ///< the connection's role (current_user)
    QString owner;   ///< audit_log's owner
    QString reason;  ///< why it is not in place (empty when it is)
    /** @brief The SQL a superuser runs to put the separation in place for @p role (the server's login role). */
    static QString setupSql(const QString &role);
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
    /** @brief A page of the audit report; nullopt on a database error. */
    std::optional<AuditPage> audit(const AuditQuery &query);
    /** @brief Whether the audit entry @p auditId exists (a page cursor names one); nullopt on a database error. */
    std::optional<bool> auditEntryExists(qint64 auditId);
    /** @brief What the connection's role could do to the audit log; nullopt on a database error. */
    std::optional<AuditProtection> auditProtection();

    bool recordHeartbeat(qint64 deviceId, const Heartbeat &heartbeat);
    /** @brief Every device with its health; online when seen within @p onlineWindowSeconds. */
    std::optional<QJsonArray> devices(int onlineWindowSeconds);

private:
    const Database &m_database;
};

} // namespace marquee::store
