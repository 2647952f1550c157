// SPDX-License-Identifier: AGPL-3.0-or-later
#include "staffrepository.h"

#include "core/isotime.h"

#include <QJsonDocument>

namespace marquee::store {

StaffRepository::StaffRepository(const Database &database)
    : m_database(database)
{
}

bool StaffRepository::appendAudit(QSqlDatabase &db, const Principal &actor, const AuditEntry &entry)
{
    QSqlQuery query(db);
    // A device acts as itself; a staff member from the device their session was opened on (sessions.device_id,
    // NULL when signed in without one).
    prepareQuery(query, QStringLiteral("INSERT INTO audit_log (actor, actor_name, actor_role, device_id, action, target, reason, details) "
                                       "VALUES (?, ?, ?, coalesce(CAST(? AS bigint), (SELECT device_id FROM sessions WHERE session_id = ?)), "
                                       "        ?, ?, ?, ?::jsonb)"));
    query.addBindValue(actor.owner());
    query.addBindValue(nonNull(actor.name));
    query.addBindValue(toString(actor.role));
    const bool isDevice = actor.kind == Principal::Kind::Device;
    query.addBindValue(isDevice ? QVariant(actor.id) : QVariant(QMetaType::fromType<qlonglong>()));
    query.addBindValue(isDevice ? QVariant(QMetaType::fromType<qlonglong>()) : QVariant(actor.id));
    query.addBindValue(entry.action);
    query.addBindValue(nonNull(entry.target));
    query.addBindValue(nonNull(entry.reason));
    query.addBindValue(QString::fromUtf8(QJsonDocument(entry.details).toJson(QJsonDocument::Compact)));
    return execQuery(query, "append audit");
}

bool StaffRepository::appendAudit(const Principal &actor, const AuditEntry &entry)
{
    QSqlDatabase db = m_database.connection();
    return appendAudit(db, actor, entry);
}

std::function<bool(QSqlDatabase &, qint64)> StaffRepository::auditShow(const Principal &actor, const AuditEntry &entry)
{
    return [actor, entry](QSqlDatabase &db, qint64 showId) {
        AuditEntry withTarget = entry;
        withTarget.target = QStringLiteral("show:%1").arg(showId);
        return appendAudit(db, actor, withTarget);
    };
}

std::optional<QJsonArray> StaffRepository::audit(const AuditQuery &filter)
{
    QSqlQuery query(m_database.connection());
    prepareQuery(query, QStringLiteral(
        "SELECT audit_id, at, actor, actor_name, actor_role, device_id, action, target, reason, details::text "
        "  FROM audit_log "
        " WHERE at >= CAST(:from AS timestamptz) AND at < CAST(:to AS timestamptz) "
        "   AND (CAST(:actor AS text) = '' OR actor = :actor) AND (CAST(:action AS text) = '' OR action = :action) "
        " ORDER BY at DESC, audit_id DESC LIMIT :limit"));
    query.bindValue(QStringLiteral(":from"), filter.from.toUTC());
    query.bindValue(QStringLiteral(":to"), filter.to.toUTC());
    query.bindValue(QStringLiteral(":actor"), nonNull(filter.actor));
    query.bindValue(QStringLiteral(":action"), nonNull(filter.action));
    query.bindValue(QStringLiteral(":limit"), filter.limit);
    if (!execQuery(query, "audit report"))
        return std::nullopt;
    QJsonArray rows;
    while (query.next()) {
        rows.append(QJsonObject{{QStringLiteral("audit_id"), query.value(0).toLongLong()},
                                {QStringLiteral("at"), toIsoUtc(query.value(1).toDateTime())},
                                {QStringLiteral("actor"), query.value(2).toString()},
                                {QStringLiteral("actor_name"), query.value(3).toString()},
                                {QStringLiteral("actor_role"), query.value(4).toString()},
                                {QStringLiteral("device_id"), query.value(5).isNull() ? QJsonValue() : QJsonValue(query.value(5).toLongLong())},
                                {QStringLiteral("action"), query.value(6).toString()},
                                {QStringLiteral("target"), query.value(7).toString()},
                                {QStringLiteral("reason"), query.value(8).toString()},
                                {QStringLiteral("details"), QJsonDocument::fromJson(query.value(9).toString().toUtf8()).object()}});
    }
    return rows;
}

bool StaffRepository::recordHeartbeat(qint64 deviceId, const Heartbeat &heartbeat)
{
    QSqlQuery *statement = m_database.prepared(QStringLiteral(
        "UPDATE devices SET last_seen_at = now(), queue_length = ?, printer_state = ?, app_version = ?, "
        "       reconciliation = coalesce(?::jsonb, reconciliation), "
        "       reconciliation_received_at = CASE WHEN ?::boolean THEN now() ELSE reconciliation_received_at END "
        " WHERE device_id = ?"));
    if (!statement)
        return false;
    statement->addBindValue(heartbeat.queueLength);
    statement->addBindValue(nonNull(heartbeat.printerState));
    statement->addBindValue(nonNull(heartbeat.appVersion));
    statement->addBindValue(heartbeat.reconciliation
                                ? QVariant(QString::fromUtf8(QJsonDocument(*heartbeat.reconciliation).toJson(QJsonDocument::Compact)))
                                : QVariant(QMetaType::fromType<QString>()));
    statement->addBindValue(heartbeat.reconciliation.has_value());
    statement->addBindValue(deviceId);
    const bool ok = execQuery(*statement, "record heartbeat");
    if (!ok)
        m_database.resetAfterError(statement->lastError());
    return ok;
}

std::optional<QJsonArray> StaffRepository::devices(int onlineWindowSeconds)
{
    QSqlQuery query(m_database.connection());
    prepareQuery(query, QStringLiteral(
        "SELECT device_id, name, role, created_at, last_seen_at, queue_length, printer_state, app_version, revoked_at IS NOT NULL, "
        "       coalesce(last_seen_at > now() - make_interval(secs => ?), false), reconciliation::text, reconciliation_received_at "
        "  FROM devices ORDER BY name"));
    query.addBindValue(onlineWindowSeconds);
    if (!execQuery(query, "list devices"))
        return std::nullopt;
    QJsonArray rows;
    while (query.next()) {
        rows.append(QJsonObject{{QStringLiteral("device_id"), query.value(0).toLongLong()},
                                {QStringLiteral("name"), query.value(1).toString()},
                                {QStringLiteral("role"), query.value(2).toString()},
                                {QStringLiteral("enrolled_at"), toIsoUtc(query.value(3).toDateTime())},
                                {QStringLiteral("last_seen_at"), query.value(4).isNull() ? QJsonValue() : QJsonValue(toIsoUtc(query.value(4).toDateTime()))},
                                {QStringLiteral("queue_length"), query.value(5).toInt()},
                                {QStringLiteral("printer_state"), query.value(6).toString()},
                                {QStringLiteral("app_version"), query.value(7).toString()},
                                {QStringLiteral("revoked"), query.value(8).toBool()},
                                {QStringLiteral("online"), query.value(9).toBool()},
                                {QStringLiteral("reconciliation"), query.value(10).isNull()
                                     ? QJsonValue()
                                     : QJsonValue(QJsonDocument::fromJson(query.value(10).toString().toUtf8()).object())},
                                {QStringLiteral("reconciliation_received_at"),
                                 query.value(11).isNull() ? QJsonValue() : QJsonValue(toIsoUtc(query.value(11).toDateTime()))}});
    }
    return rows;
}

} // namespace marquee::store
