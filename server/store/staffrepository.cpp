// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/staffrepository.h"

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
    const bool isDevice = actor.kind == Principal::Kind::Device;
    const bool isSession = actor.kind == Principal::Kind::Session;
    query.addBindValue(actor.kind == Principal::Kind::System ? QStringLiteral("system") : toString(actor.role));
    query.addBindValue(isDevice ? QVariant(actor.id) : QVariant(QMetaType::fromType<qlonglong>()));
    query.addBindValue(isSession ? QVariant(actor.id) : QVariant(QMetaType::fromType<qlonglong>()));
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

std::optional<AuditPage> StaffRepository::audit(const AuditQuery &filter)
{
    // Keyset pages in the report's order (at DESC, audit_id DESC): the cursor row's own `at` is read in SQL, so
    // its microseconds are compared as stored (a QDateTime round trip would cut them to milliseconds). The plain
    // `at <= cursor` lets the scan start at the cursor on the `at` indexes; the row comparison breaks ties.
    const QString range = QStringLiteral(
        " WHERE at >= CAST(:from AS timestamptz) AND at < CAST(:to AS timestamptz) "
        "   AND (CAST(:actor AS text) = '' OR actor = :actor) AND (CAST(:action AS text) = '' OR action = :action) ");
    auto bindRange = [&](QSqlQuery &query) {
        query.bindValue(QStringLiteral(":from"), filter.from.toUTC());
        query.bindValue(QStringLiteral(":to"), filter.to.toUTC());
        query.bindValue(QStringLiteral(":actor"), nonNull(filter.actor));
        query.bindValue(QStringLiteral(":action"), nonNull(filter.action));
    };
    QSqlQuery query(m_database.connection());
    prepareQuery(query, QStringLiteral(
        "SELECT audit_id, at, actor, actor_name, actor_role, device_id, action, target, reason, details::text "
        "  FROM audit_log ") + range + QStringLiteral(
        "   AND (CAST(:before AS bigint) = 0 "
        "        OR (at <= (SELECT c.at FROM audit_log c WHERE c.audit_id = :before) "
        "            AND (at, audit_id) < (SELECT c.at, c.audit_id FROM audit_log c WHERE c.audit_id = :before))) "
        " ORDER BY at DESC, audit_id DESC LIMIT :limit"));
    bindRange(query);
    query.bindValue(QStringLiteral(":before"), filter.before);
    query.bindValue(QStringLiteral(":limit"), filter.limit + 1); // one more says whether another page follows
    if (!execQuery(query, "audit report"))
        return std::nullopt;
    AuditPage page;
    while (query.next()) {
        if (page.rows.size() == filter.limit) {
            page.truncated = true;
            break;
        }
        page.nextBefore = query.value(0).toLongLong();
        page.rows.append(QJsonObject{{QStringLiteral("audit_id"), query.value(0).toLongLong()},
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
    if (!page.truncated)
        page.nextBefore = 0;
    // The count over the whole range (not from the cursor), so every page can say "N of total".
    if (!page.truncated && filter.before == 0) {
        page.total = page.rows.size();
        return page;
    }
    QSqlQuery count(m_database.connection());
    prepareQuery(count, QStringLiteral("SELECT count(*) FROM audit_log ") + range);
    bindRange(count);
    if (!execQuery(count, "audit report count") || !count.next())
        return std::nullopt;
    page.total = count.value(0).toLongLong();
    return page;
}

std::optional<bool> StaffRepository::auditEntryExists(qint64 auditId)
{
    QSqlQuery *statement = m_database.prepared(QStringLiteral("SELECT EXISTS (SELECT 1 FROM audit_log WHERE audit_id = ?)"));
    if (!statement)
        return std::nullopt;
    statement->addBindValue(auditId);
    if (!execQuery(*statement, "audit entry exists") || !statement->next()) {
        m_database.resetAfterError(statement->lastError());
        return std::nullopt;
    }
    const bool exists = statement->value(0).toBool();
    statement->finish();
    return exists;
}

std::optional<AuditProtection> StaffRepository::auditProtection()
{
    QSqlQuery query(m_database.connection());
    // pg_has_role(..., 'MEMBER') is true for the owner itself and for a superuser as well.
    prepareQuery(query, QStringLiteral(
        "SELECT current_user, pg_get_userbyid(c.relowner), r.rolsuper, r.rolcreaterole, "
        "       pg_has_role(current_user, c.relowner, 'MEMBER'), pg_has_role(current_user, p.proowner, 'MEMBER'), "
        "       (SELECT count(*) FROM pg_trigger t WHERE t.tgrelid = c.oid AND t.tgenabled <> 'D' "
        "           AND t.tgname IN ('audit_log_append_only', 'audit_log_no_truncate')) "
        "  FROM pg_class c, pg_roles r, pg_proc p "
        " WHERE c.oid = 'audit_log'::regclass AND r.rolname = current_user AND p.oid = 'mq_refuse_audit_change()'::regprocedure"));
    if (!execQuery(query, "audit protection") || !query.next())
        return std::nullopt;
    AuditProtection protection;
    protection.role = query.value(0).toString();
    protection.owner = query.value(1).toString();
    if (query.value(2).toBool())
        protection.reason = QStringLiteral("the role %1 is a superuser, which may drop the triggers").arg(protection.role);
    else if (query.value(6).toInt() != 2)
        protection.reason = QStringLiteral("the append-only triggers are missing or disabled");
    else if (query.value(3).toBool())
        protection.reason = QStringLiteral("the role %1 may create roles, so it may make itself the owner's member").arg(protection.role);
    else if (query.value(4).toBool() || query.value(5).toBool())
        protection.reason = protection.owner == protection.role
            ? QStringLiteral("the role %1 owns audit_log, so it may drop its triggers").arg(protection.role)
            : QStringLiteral("the role %1 is a member of the audit log's owner").arg(protection.role);
    protection.inPlace = protection.reason.isEmpty();
    return protection;
}

QString AuditProtection::setupSql(const QString &role)
{
    // The role's name is quoted as an identifier (it comes from current_user or an operator's option).
    QString quoted = role;
    quoted.replace(QLatin1Char('"'), QStringLiteral("\"\""));
    quoted = QLatin1Char('"') + quoted + QLatin1Char('"');
    return QStringLiteral(
               "-- Run as a superuser in the Marquee database; %1 is the role marquee-server signs in as.\n"
               "DO $$ BEGIN CREATE ROLE marquee_audit_owner NOLOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;\n"
               "ALTER TABLE audit_log OWNER TO marquee_audit_owner;\n"
               "ALTER FUNCTION mq_refuse_audit_change() OWNER TO marquee_audit_owner;\n"
               "GRANT SELECT, INSERT ON audit_log TO %1;\n"
               "REVOKE marquee_audit_owner FROM %1;\n"
               "-- And if %1 is a superuser or may create roles (it could undo all of the above):\n"
               "-- ALTER ROLE %1 NOSUPERUSER NOCREATEROLE;\n")
        .arg(quoted);
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
