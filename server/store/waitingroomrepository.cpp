// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/waitingroomrepository.h"

#include <QUuid>
#include <algorithm>

namespace marquee::store {

namespace {
const QString kRoomColumns = QStringLiteral(
    "show_id, enabled, automatic, opened, sold_out, opens_at, secret, admission_ttl_s, min_admit_per_s, max_in_flight, "
    "ranked_upto, admitted_upto, admit_rate_per_s, sold_out_at");

WaitingRoomRow readRoom(const QSqlQuery &query)
{
    WaitingRoomRow room;
    room.showId = query.value(0).toLongLong();
    room.enabled = query.value(1).toBool();
    room.automatic = query.value(2).toBool();
    room.opened = query.value(3).toBool();
    room.soldOut = query.value(4).toBool();
    room.opensAt = query.value(5).toDateTime();
    room.secret = query.value(6).toByteArray();
    room.admissionTtlSeconds = query.value(7).toInt();
    room.minAdmitPerSecond = query.value(8).toDouble();
    room.maxInFlight = query.value(9).toInt();
    room.rankedUpto = query.value(10).toLongLong();
    room.admittedUpto = query.value(11).toLongLong();
    room.admitRatePerSecond = query.value(12).toDouble();
    room.soldOutAt = query.value(13).toDateTime();
    return room;
}
} // namespace

WaitingRoomRepository::WaitingRoomRepository(const Database &database)
    : m_database(database)
{
}

std::optional<std::vector<WaitingRoomRow>> WaitingRoomRepository::rooms()
{
    QSqlQuery *statement = m_database.prepared(QStringLiteral("SELECT %1 FROM waiting_rooms WHERE enabled OR sold_out").arg(kRoomColumns));
    if (!statement)
        return std::nullopt;
    QSqlQuery &query = *statement;
    if (!execQuery(query, "waiting rooms")) {
        m_database.resetAfterError(query.lastError());
        return std::nullopt;
    }
    std::vector<WaitingRoomRow> rooms;
    while (query.next())
        rooms.push_back(readRoom(query));
    query.finish();
    return rooms;
}

WaitingRoomRepository::Configured WaitingRoomRepository::configure(qint64 showId, const WaitingRoomSettings &settings,
                                                                   const QByteArray &newSecret, const Principal &actor,
                                                                   const AuditEntry &audit, WaitingRoomRow *result)
{
    QSqlDatabase db = m_database.connection();
    Transaction transaction(db);
    if (!transaction.isActive())
        return Configured::Error;
    QSqlQuery show(db);
    prepareQuery(show, QStringLiteral("UPDATE shows SET waiting_room = ? WHERE show_id = ?"));
    show.addBindValue(settings.enabled);
    show.addBindValue(showId);
    if (!execQuery(show, "waiting room flag"))
        return Configured::Error;
    if (show.numRowsAffected() == 0)
        return Configured::ShowNotFound;
    QSqlQuery upsert(db);
    prepareQuery(upsert, QStringLiteral(
        "INSERT INTO waiting_rooms (show_id, enabled, opens_at, secret, admission_ttl_s, min_admit_per_s, max_in_flight) "
        "VALUES (?, ?, coalesce(?::timestamptz, now()), ?, ?, ?, ?) "
        "ON CONFLICT (show_id) DO UPDATE SET enabled = EXCLUDED.enabled, "
        "  opens_at = CASE WHEN waiting_rooms.opened THEN waiting_rooms.opens_at ELSE EXCLUDED.opens_at END, "
        "  admission_ttl_s = EXCLUDED.admission_ttl_s, min_admit_per_s = EXCLUDED.min_admit_per_s, "
        "  max_in_flight = EXCLUDED.max_in_flight, automatic = false, updated_at = now() "
        "RETURNING %1").arg(kRoomColumns));
    upsert.addBindValue(showId);
    upsert.addBindValue(settings.enabled);
    upsert.addBindValue(settings.opensAt.isValid() ? QVariant(settings.opensAt.toUTC()) : QVariant(QMetaType::fromType<QDateTime>()));
    upsert.addBindValue(newSecret);
    upsert.addBindValue(settings.admissionTtlSeconds);
    upsert.addBindValue(settings.minAdmitPerSecond);
    upsert.addBindValue(settings.maxInFlight);
    if (!execQuery(upsert, "configure waiting room") || !upsert.next())
        return Configured::Error;
    *result = readRoom(upsert);
    AuditEntry withTarget = audit;
    withTarget.target = QStringLiteral("show:%1").arg(showId);
    if (!StaffRepository::appendAudit(db, actor, withTarget))
        return Configured::Error;
    return transaction.commit() ? Configured::Ok : Configured::Error;
}

bool WaitingRoomRepository::enableAutomatically(qint64 showId, const QByteArray &newSecret)
{
    QSqlDatabase db = m_database.connection();
    Transaction transaction(db);
    if (!transaction.isActive())
        return false;
    QSqlQuery insert(db);
    prepareQuery(insert, QStringLiteral("INSERT INTO waiting_rooms (show_id, opens_at, secret, automatic) "
                                        "SELECT show_id, now(), ?, true FROM shows WHERE show_id = ? "
                                        "ON CONFLICT (show_id) DO NOTHING"));
    insert.addBindValue(newSecret);
    insert.addBindValue(showId);
    if (!execQuery(insert, "enable waiting room"))
        return false;
    if (insert.numRowsAffected() > 0) {
        QSqlQuery flag(db);
        prepareQuery(flag, QStringLiteral("UPDATE shows SET waiting_room = true WHERE show_id = ?"));
        flag.addBindValue(showId);
        if (!execQuery(flag, "waiting room flag"))
            return false;
    }
    return transaction.commit();
}

std::optional<std::vector<qint64>> WaitingRoomRepository::join(qint64 showId, const QStringList &owners)
{
    // Rows are inserted in the order of the array (ORDER BY its ordinality), so the identity values, drawn as each
    // row is inserted, ascend in that order: the i-th smallest id returned is owners[i]'s.
    QSqlQuery *statement = m_database.prepared(QStringLiteral(
        "INSERT INTO waiting_room_entries (show_id, owner) "
        "SELECT r.show_id, o.owner FROM waiting_rooms r, unnest(?::text[]) WITH ORDINALITY AS o(owner, n) "
        " WHERE r.show_id = ? AND r.enabled AND NOT r.sold_out ORDER BY o.n RETURNING entry_id"));
    if (!statement)
        return std::nullopt;
    QSqlQuery &query = *statement;
    query.addBindValue(toPgTextArray(owners));
    query.addBindValue(showId);
    if (!execQuery(query, "join waiting room")) {
        m_database.resetAfterError(query.lastError());
        return std::nullopt;
    }
    std::vector<qint64> entryIds;
    entryIds.reserve(size_t(owners.size()));
    while (query.next())
        entryIds.push_back(query.value(0).toLongLong());
    query.finish();
    std::sort(entryIds.begin(), entryIds.end());
    if (!entryIds.empty() && entryIds.size() != size_t(owners.size()))
        return std::nullopt; // cannot happen (one room row, all or none); never hand out a wrong id
    return entryIds;
}

std::optional<std::vector<std::pair<qint64, qint64>>> WaitingRoomRepository::ranks(qint64 showId, qint64 afterRank, qint64 uptoRank)
{
    QSqlQuery *statement = m_database.prepared(QStringLiteral(
        "SELECT entry_id, rank FROM waiting_room_entries WHERE show_id = ? AND rank > ? AND rank <= ?"));
    if (!statement)
        return std::nullopt;
    QSqlQuery &query = *statement;
    query.addBindValue(showId);
    query.addBindValue(afterRank);
    query.addBindValue(uptoRank);
    if (!execQuery(query, "waiting room ranks")) {
        m_database.resetAfterError(query.lastError());
        return std::nullopt;
    }
    std::vector<std::pair<qint64, qint64>> ranks;
    ranks.reserve(size_t(uptoRank - afterRank));
    while (query.next())
        ranks.emplace_back(query.value(0).toLongLong(), query.value(1).toLongLong());
    query.finish();
    return ranks;
}

std::optional<WaitingRoomEntry> WaitingRoomRepository::entry(qint64 entryId, bool *ok)
{
    *ok = false;
    QSqlQuery *statement = m_database.prepared(
        QStringLiteral("SELECT show_id, owner, rank, admitted_at FROM waiting_room_entries WHERE entry_id = ?"));
    if (!statement)
        return std::nullopt;
    QSqlQuery &query = *statement;
    query.addBindValue(entryId);
    if (!execQuery(query, "waiting room entry")) {
        m_database.resetAfterError(query.lastError());
        return std::nullopt;
    }
    *ok = true;
    if (!query.next())
        return std::nullopt;
    WaitingRoomEntry entry;
    entry.entryId = entryId;
    entry.showId = query.value(0).toLongLong();
    entry.owner = query.value(1).toString();
    if (!query.value(2).isNull())
        entry.rank = query.value(2).toLongLong();
    entry.admittedAt = query.value(3).toDateTime();
    query.finish();
    return entry;
}

QString WaitingRoomRepository::tick(qint64 showId, int minIntervalMs)
{
    QSqlQuery *statement = m_database.prepared(QStringLiteral("SELECT mq_waiting_room_tick(?, ?)"));
    if (!statement)
        return {};
    QSqlQuery &query = *statement;
    query.addBindValue(showId);
    query.addBindValue(minIntervalMs);
    if (!execQuery(query, "waiting room tick") || !query.next()) {
        m_database.resetAfterError(query.lastError());
        return {};
    }
    const QString outcome = query.value(0).toString();
    query.finish();
    return outcome;
}

WaitingRoomRepository::Claim WaitingRoomRepository::claimHold(qint64 entryId, QString *activeHold)
{
    // One statement decides (compare-and-set on the entry row), so two concurrent holds with one admission cannot
    // both pass. The previous hold counts as live until it is released or expires; an order keeps its hold alive.
    QSqlQuery *statement = m_database.prepared(QStringLiteral(
        "WITH target AS (SELECT entry_id, hold_id, hold_claimed_at FROM waiting_room_entries WHERE entry_id = ? FOR UPDATE), "
        "live AS (SELECT t.hold_id FROM target t JOIN holds h ON h.hold_id = t.hold_id "
        "          WHERE h.released_at IS NULL AND h.expires_at > clock_timestamp()), "
        "claimed AS (UPDATE waiting_room_entries e SET hold_claimed_at = clock_timestamp() FROM target t "
        "             WHERE e.entry_id = t.entry_id AND NOT EXISTS (SELECT 1 FROM live) "
        "               AND (t.hold_claimed_at IS NULL OR t.hold_claimed_at < clock_timestamp() - interval '30 seconds') "
        "            RETURNING e.entry_id) "
        "SELECT (SELECT count(*) FROM target), (SELECT count(*) FROM claimed), (SELECT hold_id::text FROM live)"));
    if (!statement)
        return Claim::Error;
    QSqlQuery &query = *statement;
    query.addBindValue(entryId);
    if (!execQuery(query, "claim admission") || !query.next()) {
        m_database.resetAfterError(query.lastError());
        return Claim::Error;
    }
    const bool found = query.value(0).toLongLong() > 0;
    const bool claimed = query.value(1).toLongLong() > 0;
    *activeHold = query.value(2).toString();
    query.finish();
    if (!found)
        return Claim::NotFound;
    if (claimed)
        return Claim::Claimed;
    return activeHold->isEmpty() ? Claim::InProgress : Claim::HoldActive;
}

std::optional<int> WaitingRoomRepository::liveHolds(const QString &owner, qint64 showId)
{
    // The same notion of a live hold as claimHold(); holds_owner (owner, created_at) finds the owner's holds.
    QSqlQuery *statement = m_database.prepared(QStringLiteral(
        "SELECT count(*) FROM holds WHERE owner = ? AND show_id = ? AND released_at IS NULL AND expires_at > clock_timestamp()"));
    if (!statement)
        return std::nullopt;
    QSqlQuery &query = *statement;
    query.addBindValue(owner);
    query.addBindValue(showId);
    if (!execQuery(query, "count live holds") || !query.next()) {
        m_database.resetAfterError(query.lastError());
        return std::nullopt;
    }
    const int count = query.value(0).toInt();
    query.finish();
    return count;
}

bool WaitingRoomRepository::finishHold(qint64 entryId, const QString &holdId)
{
    QSqlQuery *statement = m_database.prepared(QStringLiteral(
        "UPDATE waiting_room_entries SET hold_claimed_at = NULL, "
        "  hold_id = coalesce(?::uuid, hold_id), held_at = CASE WHEN ?::uuid IS NULL THEN held_at ELSE coalesce(held_at, now()) END "
        " WHERE entry_id = ?"));
    if (!statement)
        return false;
    QSqlQuery &query = *statement;
    const QVariant hold = QUuid::fromString(holdId).isNull() ? QVariant(QMetaType::fromType<QString>()) : QVariant(holdId);
    query.addBindValue(hold);
    query.addBindValue(hold);
    query.addBindValue(entryId);
    if (!execQuery(query, "finish admission hold")) {
        m_database.resetAfterError(query.lastError());
        return false;
    }
    query.finish();
    return true;
}

} // namespace marquee::store
