// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/householdrepository.h"

#include "core/isotime.h"
#include "store/staffrepository.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSqlQuery>
#include <QUuid>

namespace marquee::store {

HouseHoldRepository::HouseHoldRepository(const Database &database)
    : m_database(database)
{
}

HoldDecision HouseHoldRepository::place(const Principal &manager, const QString &idempotencyKey, const QByteArray &requestHash,
                                       qint64 showId, const QStringList &seatIds, const QString &reason)
{
    QSqlDatabase db = m_database.connection();
    Transaction tx(db);
    if (!tx.isActive())
        return {};
    QSqlQuery query(db);
    prepareQuery(query, QStringLiteral("SELECT o_decision, o_data::text, o_replayed FROM mq_place_hold(?, ?, ?, ?, ?::text[], ?)"));
    query.addBindValue(owner());
    query.addBindValue(idempotencyKey.isEmpty() ? QVariant(QMetaType::fromType<QString>()) : QVariant(idempotencyKey));
    query.addBindValue(QString::fromLatin1(requestHash));
    query.addBindValue(showId);
    query.addBindValue(toPgTextArray(seatIds));
    query.addBindValue(kTtlSeconds);
    if (!execQuery(query, "place house hold") || !query.next())
        return {};
    HoldDecision outcome = HoldRepository::decisionFromRow(query.value(0).toString(), query.value(1).toString().toUtf8(), query.value(2).toBool());
    if (!outcome.ok)
        return {};
    if (outcome.verdict == HoldVerdict::Granted) {
        // A replayed request (same Idempotency-Key) finds the note already set and is not audited twice.
        QSqlQuery note(db);
        prepareQuery(note, QStringLiteral("UPDATE holds SET note = ? WHERE hold_id = ?::uuid AND note IS NULL"));
        note.addBindValue(reason);
        note.addBindValue(outcome.holdId);
        if (!execQuery(note, "note house hold"))
            return {};
        if (note.numRowsAffected() == 1
            && !StaffRepository::appendAudit(db, manager, {QStringLiteral("house_hold.place"), QStringLiteral("hold:%1").arg(outcome.holdId), reason,
                                                           QJsonObject{{QStringLiteral("show_id"), showId},
                                                                       {QStringLiteral("seat_ids"), QJsonArray::fromStringList(outcome.seatIds)}}}))
            return {};
    }
    if (!tx.commit())
        return {};
    return outcome;
}

std::optional<QJsonArray> HouseHoldRepository::list(qint64 showId)
{
    QSqlQuery query(m_database.connection());
    prepareQuery(query, QStringLiteral(
        "SELECT h.hold_id::text, array_to_json(h.seat_ids)::text, coalesce(h.note, ''), h.created_at, h.expires_at "
        "  FROM holds h WHERE h.owner = ? AND h.show_id = ? AND h.released_at IS NULL AND h.expires_at > now() "
        " ORDER BY h.created_at"));
    query.addBindValue(owner());
    query.addBindValue(showId);
    if (!execQuery(query, "list house holds"))
        return std::nullopt;
    QJsonArray rows;
    while (query.next()) {
        rows.append(QJsonObject{{QStringLiteral("hold_id"), query.value(0).toString()},
                                {QStringLiteral("show_id"), showId},
                                {QStringLiteral("seat_ids"), QJsonDocument::fromJson(query.value(1).toString().toUtf8()).array()},
                                {QStringLiteral("reason"), query.value(2).toString()},
                                {QStringLiteral("created_at"), toIsoUtc(query.value(3).toDateTime())},
                                {QStringLiteral("expires_at"), toIsoUtc(query.value(4).toDateTime())}});
    }
    return rows;
}

HoldRepository::Release HouseHoldRepository::release(const Principal &manager, const QString &holdId, const QString &reason)
{
    if (QUuid::fromString(holdId).isNull() || holdId.size() != 36)
        return {true, false, 0, {}, {}};
    const SeatFreeing::Scope freeing(m_database.seatFreeing()); // outlives the transaction: see SeatFreeing
    QSqlDatabase db = m_database.connection();
    Transaction tx(db);
    if (!tx.isActive())
        return {};
    QSqlQuery live(db);
    prepareQuery(live, QStringLiteral("SELECT released_at IS NULL FROM holds WHERE hold_id = ?::uuid AND owner = ? FOR UPDATE"));
    live.addBindValue(holdId);
    live.addBindValue(owner());
    if (!execQuery(live, "find house hold"))
        return {};
    if (!live.next())
        return {true, false, 0, {}, {}};
    const bool wasLive = live.value(0).toBool();
    QSqlQuery release(db);
    prepareQuery(release, QStringLiteral("SELECT o_show_id, o_freed FROM mq_release_hold(?, ?::uuid)"));
    release.addBindValue(owner());
    release.addBindValue(holdId);
    if (!execQuery(release, "release house hold") || !release.next())
        return {};
    const qint64 showId = release.value(0).toLongLong();
    const QStringList freed = fromPgTextArray(release.value(1).toString());
    // Releasing twice is harmless and audited once.
    if (wasLive
        && !StaffRepository::appendAudit(db, manager, {QStringLiteral("house_hold.release"), QStringLiteral("hold:%1").arg(holdId), reason,
                                                       QJsonObject{{QStringLiteral("show_id"), showId}}}))
        return {};
    if (!tx.commit())
        return {};
    m_database.seatWrites().committed(showId, freed, SeatStatus::Available);
    return {true, true, showId, freed, {}};
}

} // namespace marquee::store
