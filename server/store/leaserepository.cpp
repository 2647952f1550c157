// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/leaserepository.h"
#include "store/staffrepository.h"
#include "store/ticketrepository.h"

#include "core/isotime.h"
#include "core/ticketcodec.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSqlQuery>
#include <QUuid>

namespace marquee::store {

namespace {
QJsonObject object(const QVariant &text)
{
    return QJsonDocument::fromJson(text.toString().toUtf8()).object();
}
bool isUuid(const QString &text)
{
    return text.size() == 36 && !QUuid::fromString(text).isNull();
}
QVariant nullableInt(std::optional<int> value)
{
    return value ? QVariant(*value) : QVariant(QMetaType::fromType<int>());
}
} // namespace

LeaseRepository::LeaseRepository(const Database &database, TicketRepository &tickets)
    : m_database(database)
    , m_tickets(tickets)
{
}

qint64 LeaseRepository::tillOf(const Principal &caller)
{
    if (caller.kind == Principal::Kind::Device)
        return caller.role == Role::Till ? caller.id : 0;
    if (caller.kind != Principal::Kind::Session)
        return 0;
    QSqlQuery query(m_database.connection());
    prepareQuery(query, QStringLiteral("SELECT d.device_id FROM sessions s JOIN devices d ON d.device_id = s.device_id "
                                       " WHERE s.session_id = ? AND d.role = 'till' AND d.revoked_at IS NULL"));
    query.addBindValue(caller.id);
    if (!execQuery(query, "find the till of a session"))
        return -1;
    return query.next() ? query.value(0).toLongLong() : 0;
}

LeaseDecision LeaseRepository::place(const QString &leaseId, qint64 showId, qint64 deviceId, const QString &owner, const QString &idempotencyKey,
                                     const QByteArray &requestHash, const QStringList &seatIds, int best, const LeaseDefaults &defaults,
                                     const QByteArray &devicePublicKey)
{
    LeaseDecision out;
    QSqlDatabase db = m_database.connection();
    Transaction tx(db);
    if (!tx.isActive())
        return out;
    QSqlQuery query(db);
    prepareQuery(query, QStringLiteral("SELECT o_decision, o_data::text, o_replayed "
                                       "  FROM mq_place_lease(?::uuid, ?, ?, ?, ?, ?, ?::text[], ?, ?, ?, ?)"));
    query.addBindValue(leaseId);
    query.addBindValue(showId);
    query.addBindValue(deviceId);
    query.addBindValue(owner);
    query.addBindValue(idempotencyKey.isEmpty() ? QVariant(QMetaType::fromType<QString>()) : QVariant(idempotencyKey));
    query.addBindValue(QString::fromLatin1(requestHash));
    query.addBindValue(toPgTextArray(seatIds));
    query.addBindValue(best);
    query.addBindValue(defaults.seatsPerDevice);
    query.addBindValue(defaults.returnBeforeSeconds);
    query.addBindValue(defaults.graceSeconds);
    if (!execQuery(query, "place lease") || !query.next())
        return out;
    out.decision = query.value(0).toString();
    out.data = object(query.value(1));
    out.replayed = query.value(2).toBool();
    if (out.decision == QLatin1String("granted") && !devicePublicKey.isEmpty()) {
        // Granted and delegated in one transaction: no lease of a device key exists without its delegation. A
        // replay (the same request, so the same key: it is part of the request's hash) answers the stored one.
        const QString granted = out.data.value(QStringLiteral("lease_id")).toString();
        bool ok = false;
        auto stored = m_tickets.delegations().ofLease(db, granted, &ok);
        if (ok && !stored) {
            if (!m_tickets.issueDelegation(db, granted, devicePublicKey))
                return out;
            stored = m_tickets.delegations().ofLease(db, granted, &ok);
        }
        if (!ok || !stored)
            return out;
        out.data.insert(QStringLiteral("delegation"), DelegationRepository::feedEntry(*stored));
    } else if (out.decision == QLatin1String("granted")) {
        out.data.insert(QStringLiteral("delegation"), QJsonValue::Null);
    }
    if (!tx.commit())
        return out;
    out.ok = true;
    if (out.decision == QLatin1String("granted") && !out.replayed) {
        QStringList seats;
        for (const QJsonValue &seat : out.data.value(QStringLiteral("seat_ids")).toArray())
            seats << seat.toString();
        m_database.seatWrites().committed(showId, seats, SeatStatus::Leased);
    }
    return out;
}

std::optional<QJsonObject> LeaseRepository::lease(const QString &leaseId, bool *ok)
{
    *ok = true;
    if (!isUuid(leaseId))
        return std::nullopt;
    QSqlQuery query(m_database.connection());
    prepareQuery(query, QStringLiteral("SELECT mq_lease_json(?::uuid)::text"));
    query.addBindValue(leaseId);
    if (!execQuery(query, "read lease") || !query.next()) {
        *ok = false;
        return std::nullopt;
    }
    if (query.value(0).isNull())
        return std::nullopt;
    return object(query.value(0));
}

std::optional<QJsonValue> LeaseRepository::delegationOf(const QString &leaseId)
{
    QSqlDatabase db = m_database.connection();
    bool ok = false;
    const auto stored = m_tickets.delegations().ofLease(db, leaseId, &ok);
    if (!ok)
        return std::nullopt;
    if (!stored)
        return QJsonValue(QJsonValue::Null);
    return QJsonValue(DelegationRepository::feedEntry(*stored));
}

std::optional<QJsonArray> LeaseRepository::leasesOfShow(qint64 showId, qint64 deviceId)
{
    QSqlQuery query(m_database.connection());
    prepareQuery(query, QStringLiteral("SELECT coalesce(jsonb_agg(mq_lease_json(lease_id) ORDER BY created_at, lease_id), '[]')::text "
                                       "  FROM seat_leases WHERE show_id = ? AND (? = 0 OR device_id = ?)"));
    query.addBindValue(showId);
    query.addBindValue(deviceId);
    query.addBindValue(deviceId);
    if (!execQuery(query, "list leases") || !query.next())
        return std::nullopt;
    return QJsonDocument::fromJson(query.value(0).toString().toUtf8()).array();
}

LeaseEnd LeaseRepository::end(const QString &leaseId, const Principal &caller, qint64 deviceId, bool manager)
{
    LeaseEnd out;
    if (!isUuid(leaseId)) {
        out.ok = true;
        out.decision = QStringLiteral("lease_not_found");
        return out;
    }
    const SeatFreeing::Scope freeing(m_database.seatFreeing()); // outlives the transaction: see SeatFreeing
    QSqlDatabase db = m_database.connection();
    Transaction tx(db);
    if (!tx.isActive())
        return out;
    QSqlQuery query(db);
    prepareQuery(query, QStringLiteral("SELECT o_decision, o_data::text, coalesce(o_show, 0), o_freed FROM mq_return_lease(?::uuid, ?, ?, ?)"));
    query.addBindValue(leaseId);
    query.addBindValue(caller.owner());
    query.addBindValue(deviceId);
    query.addBindValue(manager);
    if (!execQuery(query, "end lease") || !query.next())
        return out;
    out.decision = query.value(0).toString();
    out.lease = object(query.value(1));
    out.showId = query.value(2).toLongLong();
    out.freed = fromPgTextArray(query.value(3).toString());
    const bool ended = out.decision == QLatin1String("returned") || out.decision == QLatin1String("revoked");
    if (ended && !m_tickets.delegations().revokeOfLease(db, leaseId, out.decision))
        return out;
    // A manager taking seats away from a till (or back after an expiry) is a money action: on the record.
    if (ended && manager
        && !StaffRepository::appendAudit(db, caller,
                                         {out.decision == QLatin1String("revoked") ? QStringLiteral("lease.revoke") : QStringLiteral("lease.return"),
                                          QStringLiteral("lease:%1").arg(leaseId), QString(),
                                          QJsonObject{{QStringLiteral("show_id"), out.showId},
                                                      {QStringLiteral("seats_back_on_sale"), QJsonArray::fromStringList(out.freed)}}}))
        return out;
    if (!tx.commit())
        return out;
    out.ok = true;
    m_database.seatWrites().committed(out.showId, out.freed, SeatStatus::Available);
    return out;
}

std::optional<SaleTicketsRefusal> LeaseRepository::checkDelegatedTickets(const QString &leaseId, qint64 deviceId, const LeaseSale &sale, bool *ok)
{
    *ok = true;
    if (!isUuid(leaseId) || !DelegationRepository::hasDelegatedCodes(sale.tickets))
        return std::nullopt;
    QSqlDatabase db = m_database.connection();
    QSqlQuery lease(db);
    prepareQuery(lease, QStringLiteral("SELECT device_id FROM seat_leases WHERE lease_id = ?::uuid"));
    lease.addBindValue(leaseId);
    if (!execQuery(lease, "read the lease of a sale")) {
        *ok = false;
        return std::nullopt;
    }
    if (!lease.next() || lease.value(0).toLongLong() != deviceId)
        return std::nullopt; // another device's lease, or none: recording the sale says lease_not_found
    const auto stored = m_tickets.delegations().ofLease(db, leaseId, ok);
    if (!*ok)
        return std::nullopt;
    if (!stored) {
        SaleTicketsRefusal refusal;
        refusal.ticketId = sale.tickets.first().toObject().value(QStringLiteral("ticket_id")).toString();
        refusal.seatId = sale.tickets.first().toObject().value(QStringLiteral("seat_id")).toString();
        refusal.reason = QStringLiteral("no_delegation");
        return refusal;
    }
    const auto checked = DelegationRepository::checkSaleTickets(stored->delegation, sale.seatIds, sale.tickets);
    if (const auto *refusal = std::get_if<SaleTicketsRefusal>(&checked))
        return *refusal;
    QStringList ids;
    for (const DelegatedSaleTicket &ticket : std::get<QList<DelegatedSaleTicket>>(checked))
        ids << ticket.ticketId;
    const auto taken = m_tickets.delegations().ticketIdsTakenElsewhere(db, ids, stored->delegation.delegationId.toString(QUuid::WithoutBraces));
    if (!taken) {
        *ok = false;
        return std::nullopt;
    }
    if (!taken->isEmpty()) {
        SaleTicketsRefusal refusal;
        refusal.ticketId = taken->first();
        for (const QJsonValue &ticket : sale.tickets)
            if (ticket.toObject().value(QStringLiteral("ticket_id")).toString() == refusal.ticketId)
                refusal.seatId = ticket.toObject().value(QStringLiteral("seat_id")).toString();
        refusal.reason = QStringLiteral("ticket_id_taken");
        return refusal;
    }
    return std::nullopt;
}

LeaseDecision LeaseRepository::recordSale(const QString &leaseId, qint64 deviceId, const QString &owner, const LeaseSale &sale, int holdTtlSeconds)
{
    LeaseDecision out;
    if (!isUuid(leaseId)) {
        out.ok = true;
        out.decision = QStringLiteral("lease_not_found");
        return out;
    }
    QSqlDatabase db = m_database.connection();
    Transaction tx(db);
    if (!tx.isActive())
        return out;
    QSqlQuery query(db);
    prepareQuery(query, QStringLiteral("SELECT o_decision, o_data::text FROM mq_lease_sale(?::uuid, ?, ?, ?, ?, ?::text[], ?, ?, ?, ?, ?::jsonb, ?)"));
    query.addBindValue(leaseId);
    query.addBindValue(deviceId);
    query.addBindValue(owner);
    query.addBindValue(sale.deviceSeq);
    query.addBindValue(QString::fromLatin1(sale.fingerprint));
    query.addBindValue(toPgTextArray(sale.seatIds));
    query.addBindValue(sale.amountMinor);
    query.addBindValue(sale.currency);
    query.addBindValue(sale.tenderedMinor);
    query.addBindValue(sale.soldAt);
    query.addBindValue(QString::fromUtf8(QJsonDocument(sale.tickets).toJson(QJsonDocument::Compact)));
    query.addBindValue(holdTtlSeconds);
    if (!execQuery(query, "record lease sale") || !query.next())
        return out;
    out.decision = query.value(0).toString();
    out.data = object(query.value(1));
    if (!tx.commit())
        return out;
    out.ok = true;
    if (out.decision == QLatin1String("accepted")) {
        // Leased to the device until now, held for its sale until the booking commits: taken all along.
        m_database.seatWrites().committed(out.data.value(QStringLiteral("show_id")).toInteger(), sale.seatIds, SeatStatus::Held);
    }
    return out;
}

bool LeaseRepository::noteSaleResult(const QString &leaseId, qint64 deviceSeq, const QString &orderId, const QString &bookingId)
{
    QSqlQuery query(m_database.connection());
    prepareQuery(query, QStringLiteral("UPDATE lease_sales SET order_id = coalesce(order_id, ?::uuid), booking_id = coalesce(booking_id, ?::uuid) "
                                       " WHERE lease_id = ?::uuid AND device_seq = ?"));
    query.addBindValue(orderId.isEmpty() ? QVariant(QMetaType::fromType<QString>()) : QVariant(orderId));
    query.addBindValue(bookingId.isEmpty() ? QVariant(QMetaType::fromType<QString>()) : QVariant(bookingId));
    query.addBindValue(leaseId);
    query.addBindValue(deviceSeq);
    return execQuery(query, "note lease sale result");
}

int LeaseRepository::sweep(int batch)
{
    QSqlDatabase db = m_database.connection();
    Transaction tx(db);
    if (!tx.isActive())
        return -1;
    QSqlQuery query(db);
    prepareQuery(query, QStringLiteral("SELECT mq_sweep_leases(?)"));
    query.addBindValue(batch);
    if (!execQuery(query, "sweep leases") || !query.next())
        return -1;
    const int swept = query.value(0).toInt();
    return tx.commit() ? swept : -1;
}

std::optional<QJsonObject> LeaseRepository::settings(qint64 showId, const LeaseDefaults &defaults)
{
    QSqlQuery query(m_database.connection());
    prepareQuery(query, QStringLiteral("SELECT coalesce(l.seats_per_device, ?), coalesce(l.return_before_s, ?), coalesce(l.grace_s, ?) "
                                       "  FROM shows s LEFT JOIN show_lease_settings l ON l.show_id = s.show_id WHERE s.show_id = ?"));
    query.addBindValue(defaults.seatsPerDevice);
    query.addBindValue(defaults.returnBeforeSeconds);
    query.addBindValue(defaults.graceSeconds);
    query.addBindValue(showId);
    if (!execQuery(query, "read lease settings"))
        return std::nullopt;
    if (!query.next())
        return QJsonObject{};
    return QJsonObject{{QStringLiteral("show_id"), showId},
                       {QStringLiteral("seats_per_device"), query.value(0).toInt()},
                       {QStringLiteral("return_before_seconds"), query.value(1).toInt()},
                       {QStringLiteral("grace_seconds"), query.value(2).toInt()}};
}

bool LeaseRepository::setSettings(qint64 showId, std::optional<int> seatsPerDevice, std::optional<int> returnBeforeSeconds,
                                  std::optional<int> graceSeconds, const Principal &caller, bool *showKnown)
{
    *showKnown = true;
    QSqlDatabase db = m_database.connection();
    Transaction tx(db);
    if (!tx.isActive())
        return false;
    QSqlQuery query(db);
    prepareQuery(query, QStringLiteral(
        "INSERT INTO show_lease_settings (show_id, seats_per_device, return_before_s, grace_s, updated_by) "
        "SELECT show_id, ?, ?, ?, ? FROM shows WHERE show_id = ? "
        "ON CONFLICT (show_id) DO UPDATE SET seats_per_device = EXCLUDED.seats_per_device, return_before_s = EXCLUDED.return_before_s, "
        "    grace_s = EXCLUDED.grace_s, updated_by = EXCLUDED.updated_by, updated_at = now()"));
    query.addBindValue(nullableInt(seatsPerDevice));
    query.addBindValue(nullableInt(returnBeforeSeconds));
    query.addBindValue(nullableInt(graceSeconds));
    query.addBindValue(caller.owner());
    query.addBindValue(showId);
    if (!execQuery(query, "store lease settings"))
        return false;
    *showKnown = query.numRowsAffected() == 1;
    if (!*showKnown)
        return true;
    auto setting = [](std::optional<int> value) { return value ? QJsonValue(*value) : QJsonValue(QJsonValue::Null); };
    return StaffRepository::appendAudit(db, caller,
                                        {QStringLiteral("lease.settings"), QStringLiteral("show:%1").arg(showId), QString(),
                                         QJsonObject{{QStringLiteral("seats_per_device"), setting(seatsPerDevice)},
                                                     {QStringLiteral("return_before_seconds"), setting(returnBeforeSeconds)},
                                                     {QStringLiteral("grace_seconds"), setting(graceSeconds)}}})
           && tx.commit();
}

} // namespace marquee::store
