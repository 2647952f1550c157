// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/holdrepository.h"
#include "logging.h"

#include "core/errorcatalogue.h"
#include "core/isotime.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QUuid>

#include <algorithm>


namespace marquee::store {

namespace {

QString placeHoldStatement(bool asyncCommit)
{
    // set_config(..., is_local => true) lasts until this statement's transaction commits, so the commit itself
    // is asynchronous; mq_place_hold is unchanged and so is every other transaction on the connection.
    return asyncCommit ? QStringLiteral("SELECT h.o_decision, h.o_data::text, h.o_replayed FROM mq_place_hold(?, ?, ?, ?, ?::text[], ?, ?) h, "
                                        "set_config('synchronous_commit', 'off', true)")
                       : QStringLiteral("SELECT o_decision, o_data::text, o_replayed FROM mq_place_hold(?, ?, ?, ?, ?::text[], ?, ?)");
}

QString placeHoldsStatement(bool asyncCommit)
{
    return asyncCommit ? QStringLiteral("SELECT h.o_index, h.o_decision, h.o_data::text, h.o_replayed "
                                        "  FROM mq_place_holds(?, ?, ?::text[], ?::text[], ?::text[], ?::text[], ?::integer[], ?::integer[]) h, "
                                        "       set_config('synchronous_commit', 'off', true)")
                       : QStringLiteral("SELECT o_index, o_decision, o_data::text, o_replayed "
                                        "  FROM mq_place_holds(?, ?, ?::text[], ?::text[], ?::text[], ?::text[], ?::integer[], ?::integer[])");
}

struct VerdictName {
    HoldVerdict verdict;
    QLatin1StringView name;
};
// The spelling of each decision in mq_place_holds and in idempotency_keys.decision.
constexpr VerdictName kVerdictNames[] = {
    {HoldVerdict::Granted, QLatin1StringView("granted")},
    {HoldVerdict::SeatsTaken, QLatin1StringView("seats_taken")},
    {HoldVerdict::UnknownSeat, QLatin1StringView("unknown_seat")},
    {HoldVerdict::KeyReused, QLatin1StringView("key_reused")},
    {HoldVerdict::InFlight, QLatin1StringView("in_flight")},
    {HoldVerdict::ShowNotFound, QLatin1StringView("show_not_found")},
    {HoldVerdict::SalesClosed, QLatin1StringView("sales_closed")},
    {HoldVerdict::SalesNotOpen, QLatin1StringView("sales_not_open")},
    {HoldVerdict::HoldLimitReached, QLatin1StringView("hold_limit_reached")},
};

QLatin1StringView verdictName(HoldVerdict verdict)
{
    for (const VerdictName &entry : kVerdictNames)
        if (entry.verdict == verdict)
            return entry.name;
    return {};
}

QStringList stringList(const QJsonValue &value)
{
    QStringList list;
    for (const QJsonValue &item : value.toArray())
        list << item.toString();
    return list;
}

} // namespace

HoldDecision HoldRepository::decisionFromRow(const QString &name, const QByteArray &dataText, bool replayed)
{
    HoldDecision decision;
    const auto known = std::find_if(std::begin(kVerdictNames), std::end(kVerdictNames), [&](const VerdictName &entry) { return entry.name == name; });
    if (known == std::end(kVerdictNames)) {
        qCWarning(lcStore) << "unknown hold decision" << name;
        return decision;
    }
    const QJsonObject data = QJsonDocument::fromJson(dataText).object();
    decision.ok = true;
    decision.verdict = known->verdict;
    decision.replayed = replayed;
    switch (decision.verdict) {
    case HoldVerdict::Granted:
        decision.holdId = data.value(QStringLiteral("hold_id")).toString();
        decision.showId = data.value(QStringLiteral("show_id")).toInteger();
        decision.seatIds = stringList(data.value(QStringLiteral("seat_ids")));
        decision.expiresAt = data.value(QStringLiteral("expires_at")).toString();
        break;
    case HoldVerdict::SeatsTaken:
        decision.seatIds = stringList(data.value(QStringLiteral("held_seats")));
        break;
    case HoldVerdict::UnknownSeat:
        decision.seatIds = stringList(data.value(QStringLiteral("unknown_seats")));
        break;
    case HoldVerdict::HoldLimitReached:
        decision.seatLimit = data.value(QStringLiteral("limit")).toInt();
        decision.seatsHeld = data.value(QStringLiteral("held")).toInt();
        break;
    default:
        break;
    }
    return decision;
}

namespace {

/** @brief The data stored with @p decision under a key (what decisionFromRow reads back). */
QJsonObject decisionData(const HoldDecision &decision)
{
    switch (decision.verdict) {
    case HoldVerdict::Granted:
        return {{QStringLiteral("hold_id"), decision.holdId},
                {QStringLiteral("show_id"), decision.showId},
                {QStringLiteral("seat_ids"), QJsonArray::fromStringList(decision.seatIds)},
                {QStringLiteral("expires_at"), decision.expiresAt}};
    case HoldVerdict::SeatsTaken:
        return {{QStringLiteral("held_seats"), QJsonArray::fromStringList(decision.seatIds)}};
    case HoldVerdict::UnknownSeat:
        return {{QStringLiteral("unknown_seats"), QJsonArray::fromStringList(decision.seatIds)}};
    case HoldVerdict::HoldLimitReached:
        return {{QStringLiteral("limit"), decision.seatLimit}, {QStringLiteral("held"), decision.seatsHeld}};
    default:
        return {};
    }
}

} // namespace

HoldRepository::HoldRepository(const Database &database, bool asyncCommit)
    : m_database(database)
    , m_placeHoldSql(placeHoldStatement(asyncCommit))
    , m_placeHoldsSql(placeHoldsStatement(asyncCommit))
{
}

std::vector<HoldDecision> HoldRepository::placeHolds(qint64 showId, const std::vector<HoldRequest> &requests, int ttlSeconds)
{
    QStringList owners, keys, hashes, seats, counts, limits;
    for (const HoldRequest &request : requests) {
        limits << QString::number(request.seatLimit);
        owners << request.owner;
        keys << request.idempotencyKey;
        hashes << QString::fromLatin1(request.requestHash);
        seats << request.seatIds;
        counts << QString::number(request.seatIds.size());
    }
    QSqlQuery *statement = m_database.prepared(m_placeHoldsSql);
    if (!statement)
        return {};
    QSqlQuery &query = *statement;
    query.addBindValue(showId);
    query.addBindValue(ttlSeconds);
    query.addBindValue(toPgTextArray(owners));
    query.addBindValue(toPgTextArray(keys));
    query.addBindValue(toPgTextArray(hashes));
    query.addBindValue(toPgTextArray(seats));
    query.addBindValue(QLatin1Char('{') + counts.join(QLatin1Char(',')) + QLatin1Char('}'));
    query.addBindValue(QLatin1Char('{') + limits.join(QLatin1Char(',')) + QLatin1Char('}'));
    if (!execQuery(query, "place holds")) {
        m_database.resetAfterError(query.lastError());
        return {};
    }
    std::vector<HoldDecision> outcomes(requests.size());
    qsizetype answered = 0;
    while (query.next()) {
        const int index = query.value(0).toInt() - 1;
        if (index < 0 || index >= qsizetype(outcomes.size()) || outcomes[index].ok)
            break;
        outcomes[index] = decisionFromRow(query.value(1).toString(), query.value(2).toString().toUtf8(), query.value(3).toBool());
        if (!outcomes[index].ok)
            break;
        ++answered;
    }
    query.finish();
    if (answered != qsizetype(outcomes.size())) {
        qCWarning(lcStore) << "place holds: answers for" << answered << "of" << outcomes.size() << "requests";
        return {};
    }
    return outcomes;
}

HoldDecision HoldRepository::placeHold(const QString &owner, const QString &idempotencyKey, const QByteArray &requestHash,
                                      qint64 showId, const QStringList &seatIds, int ttlSeconds, int seatLimit)
{
    QSqlQuery *statement = m_database.prepared(m_placeHoldSql);
    if (!statement)
        return {};
    QSqlQuery &query = *statement;
    query.addBindValue(owner);
    query.addBindValue(idempotencyKey.isEmpty() ? QVariant(QMetaType::fromType<QString>()) : QVariant(idempotencyKey));
    query.addBindValue(QString::fromLatin1(requestHash));
    query.addBindValue(showId);
    query.addBindValue(toPgTextArray(seatIds));
    query.addBindValue(ttlSeconds);
    query.addBindValue(seatLimit);
    if (!execQuery(query, "place hold") || !query.next()) {
        // This request fails closed; a dropped connection is reopened on the next call.
        m_database.resetAfterError(query.lastError());
        return {};
    }
    HoldDecision outcome = decisionFromRow(query.value(0).toString(), query.value(1).toString().toUtf8(), query.value(2).toBool());
    query.finish();
    return outcome;
}

std::optional<HoldDecision> HoldRepository::storedDecision(const QString &owner, const QString &idempotencyKey, const QByteArray &requestHash,
                                                           bool *ok)
{
    *ok = false;
    QSqlQuery *statement
        = m_database.prepared(QStringLiteral("SELECT request_hash, decision, decision_data::text FROM idempotency_keys "
                                             "WHERE owner = ? AND key = ? AND expires_at > now()"));
    if (!statement)
        return std::nullopt;
    QSqlQuery &query = *statement;
    query.addBindValue(owner);
    query.addBindValue(idempotencyKey);
    if (!execQuery(query, "stored hold decision")) {
        m_database.resetAfterError(query.lastError());
        return std::nullopt;
    }
    std::optional<HoldDecision> stored;
    if (query.next()) {
        // As mq_place_holds answers a key it finds stored: its decision again, or key_reused for another request.
        if (query.value(0).toString().toLatin1() != requestHash) {
            stored = HoldDecision::refused(HoldVerdict::KeyReused);
            stored->inProcess = true;
        } else
            stored = decisionFromRow(query.value(1).toString(), query.value(2).toString().toUtf8(), true);
    }
    query.finish();
    *ok = !stored || stored->ok;
    return *ok ? stored : std::nullopt;
}

HoldRepository::Release HoldRepository::releaseHold(const QString &owner, const QString &holdId)
{
    if (QUuid::fromString(holdId).isNull())
        return {true, false, 0, {}, {}};
    const SeatFreeing::Scope freeing(m_database.seatFreeing());
    QSqlQuery *statement = m_database.prepared(QStringLiteral("SELECT o_show_id, o_freed, coalesce(o_live_order::text, '') FROM mq_release_hold(?, ?::uuid)"));
    if (!statement)
        return {};
    QSqlQuery &query = *statement;
    query.addBindValue(owner);
    query.addBindValue(holdId);
    if (!execQuery(query, "release hold") || !query.next()) {
        m_database.resetAfterError(query.lastError());
        return {};
    }
    Release release{true, !query.value(0).isNull(), query.value(0).toLongLong(), fromPgTextArray(query.value(1).toString()),
                    query.value(2).toString()};
    query.finish();
    // One statement, committed when it returned: subscribers get the freed seats now, not from a later re-read.
    if (release.found)
        m_database.seatWrites().committed(release.showId, release.freedSeats, SeatStatus::Available);
    return release;
}

std::optional<QJsonObject> HoldRepository::hold(const QString &owner, const QString &holdId, bool *ok)
{
    *ok = true;
    if (QUuid::fromString(holdId).isNull())
        return std::nullopt;
    QSqlQuery query(m_database.connection());
    prepareQuery(query, QStringLiteral(
        "SELECT h.hold_id::text, h.show_id, array_to_json(h.seat_ids)::text, "
        "       to_char(coalesce((SELECT max(ss.hold_expires_at) FROM show_seats ss WHERE ss.show_id = h.show_id "
        "                  AND ss.seat_id = ANY (h.seat_ids) AND ss.held_by = h.hold_id AND ss.status = 'held'), h.expires_at) "
        "               AT TIME ZONE 'UTC', "
        "               'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), "
        "       h.released_at IS NOT NULL, "
        "       EXISTS (SELECT 1 FROM show_seats ss WHERE ss.show_id = h.show_id AND ss.seat_id = ANY (h.seat_ids) "
        "                AND ss.held_by = h.hold_id "
        "                AND ss.status = 'held' AND ss.hold_expires_at > now()), "
        "       to_char(h.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') "
        "  FROM holds h WHERE h.hold_id = ?::uuid AND h.owner = ?"));
    query.addBindValue(holdId);
    query.addBindValue(owner);
    if (!execQuery(query, "read hold")) {
        *ok = false;
        return std::nullopt;
    }
    if (!query.next())
        return std::nullopt;
    QString state;
    if (query.value(4).toBool())
        state = QStringLiteral("released");
    else if (query.value(5).toBool())
        state = QStringLiteral("active");
    else
        state = QStringLiteral("expired");
    return QJsonObject{{QStringLiteral("hold_id"), query.value(0).toString()},
                       {QStringLiteral("show_id"), query.value(1).toLongLong()},
                       {QStringLiteral("seat_ids"), QJsonDocument::fromJson(query.value(2).toString().toUtf8()).array()},
                       // Formatted by PostgreSQL exactly as mq_place_hold formats them (milliseconds truncated), so
                       // the hold reads back with the very expires_at its 200 announced (Qt would round instead).
                       {QStringLiteral("expires_at"), query.value(3).toString()},
                       {QStringLiteral("created_at"), query.value(6).toString()},
                       {QStringLiteral("state"), state}};
}

bool HoldRepository::storeAnswers(const std::vector<StoredAnswer> &answers)
{
    if (answers.empty())
        return true;
    QStringList owners, keys, hashes, decisions, datas;
    for (const StoredAnswer &answer : answers) {
        owners << answer.owner;
        keys << answer.idempotencyKey;
        hashes << QString::fromLatin1(answer.requestHash);
        decisions << verdictName(answer.decision.verdict);
        datas << QString::fromUtf8(jsonbText(decisionData(answer.decision)));
    }
    // One statement, one transaction: the whole batch shares one commit. DO NOTHING: if the key reached
    // mq_place_hold meanwhile, its record is the truth.
    QSqlQuery *statement = m_database.prepared(QStringLiteral(
        "INSERT INTO idempotency_keys (owner, key, request_hash, decision, decision_data, expires_at) "
        "SELECT o, k, h, d, x::jsonb, now() + interval '24 hours' "
        "  FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[]) AS a(o, k, h, d, x) "
        "ON CONFLICT (owner, key) DO NOTHING"));
    if (!statement)
        return false;
    QSqlQuery &query = *statement;
    query.addBindValue(toPgTextArray(owners));
    query.addBindValue(toPgTextArray(keys));
    query.addBindValue(toPgTextArray(hashes));
    query.addBindValue(toPgTextArray(decisions));
    query.addBindValue(toPgTextArray(datas));
    if (!execQuery(query, "store answers")) {
        m_database.resetAfterError(query.lastError());
        return false;
    }
    query.finish();
    return true;
}

int HoldRepository::reapExpired(int batch)
{
    QSqlQuery *statement = m_database.prepared(QStringLiteral("SELECT o_show_id, o_freed FROM mq_reap_expired_holds(?)"));
    if (!statement)
        return -1;
    QSqlQuery &query = *statement;
    query.addBindValue(batch);
    if (!execQuery(query, "reap expired holds")) {
        m_database.resetAfterError(query.lastError());
        return -1;
    }
    std::vector<std::pair<qint64, QStringList>> freedByShow;
    int freed = 0;
    while (query.next()) {
        freedByShow.emplace_back(query.value(0).toLongLong(), fromPgTextArray(query.value(1).toString()));
        freed += int(freedByShow.back().second.size());
    }
    query.finish();
    // Committed (one statement): a lapse reaches subscribers from this sweep, not only from the next re-read.
    for (const auto &[showId, seatIds] : freedByShow)
        m_database.seatWrites().committed(showId, seatIds, SeatStatus::Available);
    return freed;
}

} // namespace marquee::store
