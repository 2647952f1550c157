// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/delegationrepository.h"
#include "logging.h"

#include "core/isotime.h"

#include <QJsonObject>
#include <QSqlError>
#include <QSqlQuery>
#include <QUuid>
#include <algorithm>

namespace marquee::store {

namespace {
const QString kColumns = QStringLiteral(
    "d.delegation_id::text, d.lease_id::text, d.venue_id, d.key_id, d.device_id, d.show_id, d.device_public_key, d.seat_ids::text, "
    "extract(epoch FROM d.valid_from)::bigint, extract(epoch FROM d.valid_until)::bigint, extract(epoch FROM d.sell_until)::bigint, "
    "d.signature, d.revoked_at, coalesce(d.revoked_reason, ''), "
    "(SELECT coalesce(array_agg(t.ticket_id::text ORDER BY t.ticket_id::text), '{}') FROM tickets t WHERE t.delegation_id = d.delegation_id)::text");

StoredDelegation readRow(const QSqlQuery &q)
{
    StoredDelegation s;
    TicketDelegation &d = s.delegation;
    d.delegationId = QUuid::fromString(q.value(0).toString());
    d.leaseId = QUuid::fromString(q.value(1).toString());
    s.venueId = q.value(2).toLongLong();
    d.keyId = quint32(q.value(3).toLongLong());
    d.deviceId = q.value(4).toLongLong();
    d.showId = q.value(5).toLongLong();
    d.devicePublicKey = q.value(6).toByteArray();
    d.seatIds = fromPgTextArray(q.value(7).toString());
    d.validFrom = q.value(8).toLongLong();
    d.validUntil = q.value(9).toLongLong();
    d.sellUntil = q.value(10).toLongLong();
    d.signature = q.value(11).toByteArray();
    s.revokedAt = q.value(12).isNull() ? QDateTime() : q.value(12).toDateTime();
    s.revokedReason = q.value(13).toString();
    s.ticketIds = fromPgTextArray(q.value(14).toString());
    return s;
}
QString uuidText(const QUuid &id)
{
    return id.toString(QUuid::WithoutBraces);
}
} // namespace

DelegationRepository::DelegationRepository(const Database &database)
    : m_database(database)
{
}

bool DelegationRepository::insert(QSqlDatabase &db, const TicketDelegation &d, qint64 venueId)
{
    QSqlQuery query(db);
    prepareQuery(query, QStringLiteral(
        "INSERT INTO ticket_delegations (delegation_id, lease_id, venue_id, key_id, device_id, show_id, device_public_key, seat_ids, "
        "                                valid_from, valid_until, sell_until, signature) "
        "VALUES (?::uuid, ?::uuid, ?, ?, ?, ?, ?, ?::text[], to_timestamp(?), to_timestamp(?), to_timestamp(?), ?)"));
    query.addBindValue(uuidText(d.delegationId));
    query.addBindValue(uuidText(d.leaseId));
    query.addBindValue(venueId);
    query.addBindValue(qint64(d.keyId));
    query.addBindValue(d.deviceId);
    query.addBindValue(d.showId);
    query.addBindValue(d.devicePublicKey);
    query.addBindValue(toPgTextArray(d.seatIds));
    query.addBindValue(d.validFrom);
    query.addBindValue(d.validUntil);
    query.addBindValue(d.sellUntil);
    query.addBindValue(d.signature);
    return execQuery(query, "insert ticket delegation");
}

std::optional<StoredDelegation> DelegationRepository::read(QSqlDatabase &db, const QString &where, const QString &value, bool lock, bool *ok)
{
    *ok = false;
    if (QUuid::fromString(value).isNull()) {
        *ok = true;
        return std::nullopt;
    }
    QSqlQuery query(db);
    prepareQuery(query, QStringLiteral("SELECT %1 FROM ticket_delegations d WHERE d.%2 = ?::uuid%3")
                            .arg(kColumns, where, lock ? QStringLiteral(" FOR SHARE OF d") : QString()));
    query.addBindValue(value);
    if (!execQuery(query, "read ticket delegation"))
        return std::nullopt;
    *ok = true;
    if (!query.next())
        return std::nullopt;
    return readRow(query);
}

std::optional<StoredDelegation> DelegationRepository::ofLease(QSqlDatabase &db, const QString &leaseId, bool *ok)
{
    return read(db, QStringLiteral("lease_id"), leaseId, false, ok);
}

std::optional<StoredDelegation> DelegationRepository::byId(QSqlDatabase &db, const QString &delegationId, bool lock, bool *ok)
{
    return read(db, QStringLiteral("delegation_id"), delegationId, lock, ok);
}

bool DelegationRepository::revokeOfLease(QSqlDatabase &db, const QString &leaseId, const QString &reason)
{
    QSqlQuery query(db);
    prepareQuery(query, QStringLiteral("UPDATE ticket_delegations SET revoked_at = clock_timestamp(), revoked_reason = ? "
                                       " WHERE lease_id = ?::uuid AND revoked_at IS NULL"));
    query.addBindValue(reason);
    query.addBindValue(leaseId);
    return execQuery(query, "revoke ticket delegation");
}

std::optional<QList<StoredDelegation>> DelegationRepository::published(qint64 venueId, bool everyVenue)
{
    QSqlDatabase db = m_database.connection();
    QSqlQuery query(db);
    prepareQuery(query, QStringLiteral("SELECT %1 FROM ticket_delegations d WHERE d.valid_until > now() AND (? OR d.venue_id = ?) "
                                       " ORDER BY d.created_at, d.delegation_id").arg(kColumns));
    query.addBindValue(everyVenue);
    query.addBindValue(venueId);
    if (!execQuery(query, "read published delegations"))
        return std::nullopt;
    QList<StoredDelegation> list;
    while (query.next())
        list.append(readRow(query));
    return list;
}

std::optional<QStringList> DelegationRepository::ticketIdsTakenElsewhere(QSqlDatabase &db, const QStringList &ticketIds, const QString &delegationId)
{
    QSqlQuery query(db);
    prepareQuery(query, QStringLiteral("SELECT ticket_id::text FROM tickets WHERE ticket_id = ANY (?::uuid[]) "
                                       "   AND delegation_id IS DISTINCT FROM ?::uuid ORDER BY 1"));
    query.addBindValue(toPgTextArray(ticketIds));
    query.addBindValue(delegationId);
    if (!execQuery(query, "find tickets taken"))
        return std::nullopt;
    QStringList taken;
    while (query.next())
        taken.append(query.value(0).toString());
    return taken;
}

bool DelegationRepository::hasDelegatedCodes(const QJsonArray &tickets)
{
    return std::any_of(tickets.begin(), tickets.end(), [](const QJsonValue &ticket) {
        return ticket.toObject().value(QStringLiteral("code")).toString().startsWith(QLatin1String("MQ2."));
    });
}

std::variant<QList<DelegatedSaleTicket>, SaleTicketsRefusal> DelegationRepository::checkSaleTickets(const TicketDelegation &delegation,
                                                                                                 const QStringList &seatIds, const QJsonArray &tickets)
{
    SaleTicketsRefusal refusal;
    QHash<QString, int> perSeat;
    for (const QJsonValue &value : tickets)
        ++perSeat[value.toObject().value(QStringLiteral("seat_id")).toString()];
    for (const QString &seat : seatIds) {
        if (perSeat.value(seat) == 0)
            refusal.missingSeats.append(seat);
        else if (perSeat.value(seat) > 1)
            refusal.duplicateSeats.append(seat);
    }
    if (!refusal.missingSeats.isEmpty() || !refusal.duplicateSeats.isEmpty() || tickets.size() != seatIds.size()) {
        refusal.incomplete = true;
        refusal.missingSeats.sort();
        refusal.duplicateSeats.sort();
        return refusal;
    }
    QList<DelegatedSaleTicket> checked;
    for (const QJsonValue &value : tickets) {
        const QJsonObject entry = value.toObject();
        refusal.ticketId = entry.value(QStringLiteral("ticket_id")).toString();
        refusal.seatId = entry.value(QStringLiteral("seat_id")).toString();
        const QString code = entry.value(QStringLiteral("code")).toString();
        const DelegatedTicketCheck check = DelegationCodec::checkTicket(delegation, code);
        if (check.signature != TicketCheck::Ok) {
            refusal.reason = check.signature == TicketCheck::UnknownDelegation ? QStringLiteral("other_delegation") : toString(check.signature);
            return refusal;
        }
        if (check.cover != DelegationCover::Covered) {
            refusal.reason = toString(check.cover);
            return refusal;
        }
        if (check.payload.seatId != refusal.seatId) {
            refusal.reason = QStringLiteral("seat_mismatch");
            return refusal;
        }
        if (uuidText(check.payload.ticketId) != refusal.ticketId) {
            refusal.reason = QStringLiteral("ticket_id_mismatch");
            return refusal;
        }
        checked.append({refusal.ticketId, refusal.seatId, code, check.payload.validFrom, check.payload.validUntil});
    }
    return checked;
}

QJsonObject DelegationRepository::feedEntry(const StoredDelegation &stored)
{
    QJsonObject entry = DelegationCodec::toJson(stored.delegation);
    entry.insert(QStringLiteral("venue_id"), stored.venueId);
    entry.insert(QStringLiteral("state"), stored.revoked() ? QStringLiteral("revoked") : QStringLiteral("active"));
    entry.insert(QStringLiteral("revoked_at"), stored.revoked() ? QJsonValue(toIsoUtc(stored.revokedAt)) : QJsonValue(QJsonValue::Null));
    entry.insert(QStringLiteral("revoked_reason"), stored.revoked() ? QJsonValue(stored.revokedReason) : QJsonValue(QJsonValue::Null));
    entry.insert(QStringLiteral("ticket_ids"), QJsonArray::fromStringList(stored.ticketIds));
    return entry;
}

} // namespace marquee::store
